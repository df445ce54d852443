/**
 * /v1/state (spec §4.3), API key with the "state" scope: sealed JSON values by key, in
 * namespaces ("default" when none is given). Thin: each route validates, calls one service
 * function and shapes the answer. Rules: service.ts; docs: docs/state.md.
 *
 *   PUT    /v1/state/:key   {value, namespace?}; If-Match / If-None-Match; ETag on the answer
 *   GET    /v1/state/:key   ?namespace=; ETag
 *   GET    /v1/state        ?namespace=&prefix= → {keys, namespace} (names only, at most 1,000)
 *   DELETE /v1/state/:key   ?namespace=; If-Match
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { DEFAULT_NAMESPACE } from "./limits.ts";
import * as M from "./models.ts";
import { deleteState, getState, listStateKeys, putState } from "./service.ts";

const tags = ["state"];
const security = [{ apiKey: [] }];
const doc = (summary: string, description?: string) => ({ detail: { summary, tags, security, ...(description ? { description } : {}) } });

const conditions = (headers: Record<string, string | undefined>) => ({ ifMatch: headers["if-match"], ifNoneMatch: headers["if-none-match"] });

export function stateRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/state" })
    .use(guards.apiKey(ctx, "state"))
    .get(
      "",
      ({ principal, query, set }) => {
        const list = listStateKeys(ctx, principal.accountId, query.namespace, { prefix: query.prefix });
        if (list.truncated) {
          set.headers["x-svc-truncated"] = "true";
          set.headers["x-svc-total-keys"] = String(list.total);
        }
        return namedList("keys", list.keys, { namespace: list.namespace });
      },
      {
        query: M.ListQuery,
        response: { 200: M.KeyList },
        ...doc(
          "Key names of a namespace (never values)",
          "Ascending byte order, at most 1,000. A namespace (or prefix) with more lists its first 1,000 and answers with `x-svc-truncated: true` and `x-svc-total-keys: N`; narrow it with ?prefix=.",
        ),
      },
    )
    .put(
      "/:key",
      ({ principal, params, body, headers, set }) => {
        const { write, etag } = putState(ctx, principal.accountId, { key: params.key, namespace: body.namespace, value: body.value, ...conditions(headers) });
        set.headers.etag = etag;
        set.status = write.created ? 201 : 200;
        return write;
      },
      {
        params: M.KeyParams,
        body: M.PutBody,
        // 409 state_key_limit_reached (10,000 keys), 412 precondition_failed, 413 value_too_large (256 KiB)
        response: { 200: M.Written, 201: M.Written, ...errors(409, 412) },
        ...doc(
          "Write a value (sealed at rest)",
          "201 when the key was created, 200 when replaced. `If-Match: <etag>|<version>|*` and `If-None-Match: *` make the write conditional (412 precondition_failed when not met).",
        ),
      },
    )
    .get(
      "/:key",
      ({ principal, params, query, set }) => {
        const { entry, etag } = getState(ctx, principal.accountId, params.key, query.namespace);
        set.headers.etag = etag;
        return entry;
      },
      { params: M.KeyParams, query: M.NamespaceQuery, response: { 200: M.Entry }, ...doc("Read a value") },
    )
    .delete(
      "/:key",
      ({ principal, params, query, headers }) => {
        const namespace = query.namespace ?? DEFAULT_NAMESPACE;
        deleteState(ctx, principal.accountId, params.key, namespace, conditions(headers));
        return { key: params.key, namespace, deleted: true as const };
      },
      { params: M.KeyParams, query: M.NamespaceQuery, response: { 200: M.Deleted, ...errors(412) }, ...doc("Delete a key (If-Match makes it conditional)") },
    );
}
