/**
 * /v1/ghost/sessions (session): ephemeral API keys for short-lived agents. Thin: a closed
 * schema checks the body, one service call does the work (rules in service.ts, docs/ghosts.md).
 */
import { Elysia, t } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { parseScopes } from "../keys/index.ts";
import { createGhost, destroyGhost, extendGhost, getGhost, GHOST_LIFETIME_SECS, listGhosts } from "./service.ts";

const tags = ["ghosts"];
const security = [{ session: [] }];
const { min, max } = GHOST_LIFETIME_SECS;

const Params = t.Object({ id: t.String({ maxLength: 100 }) });

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
        body: t.Object(
          {
            lifetime_secs: Int({ minimum: min, maximum: max, error: `must be a whole number of seconds from ${min} to ${max}`, description: "how long the key lives" }),
            scopes: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 40 }), { maxItems: 32, description: 'scope names (docs/scopes.md); absent: ["*"]' })),
            budget_micro_usd: t.Optional(
              Nullable(MicroUsd({ minimum: 1, description: "total the ghost's key may ever spend; absent or null: bounded only by the account's credit" })),
            ),
            name: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 100 }))),
          },
          { additionalProperties: false },
        ),
        detail: { summary: "Start a ghost session: an ephemeral API key (the sk-svc_ secret is returned once)", tags, security },
      },
    )
    .get("", ({ principal }) => namedList("sessions", listGhosts(ctx, principal.accountId)), {
      detail: { summary: "The account's live ghost sessions, newest first, at most 100 ({sessions: [...]})", tags, security },
    })
    .get("/:id", ({ principal, params }) => getGhost(ctx, principal.accountId, params.id), {
      params: Params,
      detail: { summary: "One live ghost session, with seconds_remaining", tags, security },
    })
    .post("/:id/extend", ({ principal, params, body }) => extendGhost(ctx, principal.accountId, params.id, body.extend_secs), {
      params: Params,
      body: t.Object(
        { extend_secs: Int({ minimum: 1, maximum: max, error: `must be a whole number of seconds from 1 to ${max}`, description: "seconds added to expires_at" }) },
        { additionalProperties: false },
      ),
      detail: { summary: "Move the expiry later (total lifetime at most 24 hours; 409 ghost_lifetime_exceeded beyond)", tags, security },
    })
    .post("/:id/destroy", ({ principal, params }) => destroyGhost(ctx, principal.accountId, params.id), {
      params: Params,
      detail: { summary: "Revoke the ghost's key and purge its metadata (idempotent)", tags, security },
    });
}
