/**
 * /v1/kya (spec §4.4 "KYA", session; §4.1 the public page). Thin: each route validates, calls
 * one service function and shapes the answer. Rules: service.ts; docs: docs/kya.md.
 *
 *   POST   /v1/kya/credentials         {handle, key_id | mandate_id, agent_name?} → 201; supersedes the handle's active one
 *   GET    /v1/kya/credentials         {credentials}: the account's, newest first, at most 200
 *   DELETE /v1/kya/credentials/:id     revoked (idempotent)
 *   GET    /v1/kya/public/:handle      the handle's newest credential (404 when none was issued)
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { issueCredential, listCredentials, publicCredential, revokeCredential } from "./service.ts";

const tags = ["kya"];
const security = [{ session: [] }];

export function kyaRoutes(ctx: Context) {
  const owned = new Elysia({ prefix: "/v1/kya/credentials" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        const credential = issueCredential(ctx, principal.accountId, { handle: body.handle, keyId: body.key_id, mandateId: body.mandate_id, agentName: body.agent_name });
        set.status = 201;
        return credential;
      },
      {
        body: M.IssueBody,
        // 404 the key or mandate (unknown, or another account's); 409 handle_taken (another account's handle) or binding_inactive (it can no longer act).
        response: { 201: M.Credential, ...errors(404, 409) },
        detail: {
          summary: "Issue a signed KYA credential bound to a key or mandate: its scopes, caps and the operator's wallet; supersedes the handle's active credential",
          tags,
          security,
        },
      },
    )
    .get("", ({ principal }) => namedList("credentials", listCredentials(ctx, principal.accountId)), {
      response: { 200: M.CredentialList },
      detail: { summary: "The account's KYA credentials, newest first, at most 200 ({credentials: [...]})", tags, security },
    })
    .delete("/:id", ({ principal, params }) => revokeCredential(ctx, principal.accountId, params.id), {
      params: M.IdParams,
      response: { 200: M.Credential },
      detail: { summary: "Revoke a KYA credential (idempotent); its handle has no active credential until a new one is issued", tags, security },
    });

  const open = new Elysia({ prefix: "/v1/kya/public" }).use(guards.public(ctx)).get("/:handle", ({ params }) => publicCredential(ctx, params.handle), {
    params: M.HandleParams,
    response: { 200: M.Credential },
    detail: { summary: "A handle's newest KYA credential, with its status and the bound key's or mandate's status now (404 when none was issued)", tags },
  });

  return [owned, open];
}
