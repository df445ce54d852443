/**
 * /v1/ghost/sessions (session): ephemeral API keys for short-lived agents. Thin: a closed
 * schema checks the body, one service call does the work (rules in service.ts, docs/ghosts.md).
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { parseScopes } from "../keys/index.ts";
import * as M from "./models.ts";
import { createGhost, destroyGhost, extendGhost, getGhost, listGhosts } from "./service.ts";

const tags = ["ghosts"];
const security = [{ session: [] }];
export function ghostRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/ghost/sessions" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        const { ghost, key } = createGhost(ctx, principal.accountId, {
          name: body.name ?? null,
          scopes: parseScopes(body.scopes),
          budget: body.budget_micro_usd ?? null,
          lifetimeSecs: body.lifetime_secs,
        });
        set.status = 201;
        return { ...ghost, key };
      },
      {
        body: M.GhostBody,
        response: { 201: M.CreatedGhost },
        detail: { summary: "Start a ghost session: an ephemeral API key (the sk-svc_ secret is returned once)", tags, security },
      },
    )
    .get("", ({ principal }) => namedList("sessions", listGhosts(ctx, principal.accountId)), {
      response: { 200: M.GhostList },
      detail: { summary: "The account's live ghost sessions, newest first, at most 100 ({sessions: [...]})", tags, security },
    })
    .get("/:id", ({ principal, params }) => getGhost(ctx, principal.accountId, params.id), {
      params: M.GhostParams,
      response: { 200: M.Ghost },
      detail: { summary: "One live ghost session, with seconds_remaining", tags, security },
    })
    .post("/:id/extend", ({ principal, params, body }) => extendGhost(ctx, principal.accountId, params.id, body.extend_secs), {
      params: M.GhostParams,
      body: M.ExtendBody,
      // 409 ghost_lifetime_exceeded, with max_lifetime_secs, max_extend_secs and max_expires_at.
      response: { 200: M.Ghost, ...errors(409) },
      detail: { summary: "Move the expiry later (total lifetime at most 24 hours; 409 ghost_lifetime_exceeded beyond)", tags, security },
    })
    .post("/:id/destroy", ({ principal, params }) => destroyGhost(ctx, principal.accountId, params.id), {
      params: M.GhostParams,
      response: { 200: M.DestroyedGhost },
      detail: { summary: "Revoke the ghost's key and purge its metadata (idempotent)", tags, security },
    });
}
