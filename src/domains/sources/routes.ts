/**
 * /v1/sources (spec §4.4 "Sources", session; §4.1 the public page). Thin: each route validates
 * against a closed schema (an unknown field at any level is refused with 400, not stripped),
 * calls one service function and shapes the answer. Rules: service.ts; docs: docs/sources.md.
 *
 *   POST   /v1/sources/sets        {name, sources: [{url?, sha256?, label, kind}], public?} → 201
 *   GET    /v1/sources/sets        {sets}, newest first
 *   GET    /v1/sources/sets/:id
 *   DELETE /v1/sources/sets/:id    → {id, deleted: true}
 *   GET    /v1/sources/public/:id  public: a set created with public: true (404 otherwise)
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { createSet, getSet, listSets, publicSet, removeSet } from "./service.ts";

const tags = ["sources"];
const security = [{ session: [] }];

export function sourcesRoutes(ctx: Context) {
  const owned = new Elysia({ prefix: "/v1/sources/sets" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        const created = createSet(ctx, principal.accountId, body);
        set.status = 201;
        return created;
      },
      {
        body: M.CreateBody,
        response: { 201: M.SourceSet, ...errors(409) },
        detail: {
          summary: "Create a source set: its entries are fingerprinted (sha256 of their canonical JSON) and never change; an unknown field is refused, not stripped",
          tags,
          security,
        },
      },
    )
    .get("", ({ principal }) => namedList("sets", listSets(ctx, principal.accountId)), {
      response: { 200: M.SetList },
      detail: { summary: "The account's source sets, newest first ({sets})", tags, security },
    })
    .get("/:id", ({ principal, params }) => getSet(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.SourceSet },
      detail: { summary: "One source set with its entries and fingerprint", tags, security },
    })
    .delete("/:id", ({ principal, params }) => removeSet(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.Deleted },
      detail: { summary: "Delete a source set: it can no longer be cited; receipts that cited it keep its fingerprint", tags, security },
    });

  const open = new Elysia({ prefix: "/v1/sources/public" }).use(guards.public(ctx)).get("/:id", ({ params }) => publicSet(ctx, params.id), {
    params: M.Params,
    response: { 200: M.PublicSet },
    detail: { summary: "A public source set: its entries and fingerprint (404 for unknown, deleted and private sets alike)", tags },
  });

  return [owned, open];
}
