/**
 * TypeBox models of the /v1/ghost/sessions routes: closed request bodies (an unknown field is
 * refused and named, never stripped) and the exact shapes served (service.ts ghostView and the
 * destroy tombstone), so the OpenAPI document describes what is served.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { GHOST_LIFETIME_SECS, GHOSTS_LIST_CAP } from "./service.ts";

const closed = { additionalProperties: false } as const;
const { min, max } = GHOST_LIFETIME_SECS;

export const GhostBody = t.Object(
  {
    lifetime_secs: Int({ minimum: min, maximum: max, error: `must be a whole number of seconds from ${min} to ${max}`, description: "how long the key lives" }),
    scopes: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 40 }), { maxItems: 32, description: 'scope names (docs/scopes.md); ["*"] alone or absent: every scope' })),
    budget_micro_usd: t.Optional(Nullable(MicroUsd({ minimum: 1, description: "total the ghost's key may ever spend; absent or null: bounded only by the account's credit" }))),
    name: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 100 }))),
  },
  closed,
);

export const ExtendBody = t.Object(
  { extend_secs: Int({ minimum: 1, maximum: max, error: `must be a whole number of seconds from 1 to ${max}`, description: "seconds added to expires_at" }) },
  closed,
);

export const GhostParams = t.Object({ id: t.String({ maxLength: 100 }) });

const Time = t.String({ format: "date-time" });

const ghostFields = {
  id: t.String(),
  key_id: t.String({ description: "the ghost's key (its replacement, if the key was rotated)" }),
  key_prefix: t.String(),
  name: Nullable(t.String()),
  scopes: t.Array(t.String()),
  budget_micro_usd: Nullable(MicroUsd({ description: "null: bounded only by the account's credit" })),
  spent_micro_usd: MicroUsd(),
  remaining_micro_usd: Nullable(MicroUsd({ description: "budget − spent, at least 0; null without a budget" })),
  created_at: Time,
  expires_at: Time,
  max_expires_at: t.String({ format: "date-time", description: "the latest expires_at an extension can reach (creation + 24 h)" }),
  seconds_remaining: Int({ minimum: 0 }),
  status: t.Literal("live", { description: "a destroyed or expired ghost is not shown (404)" }),
};

export const Ghost = t.Object(ghostFields, closed);

export const CreatedGhost = t.Object({ ...ghostFields, key: t.String({ pattern: "^sk-svc_", description: "the ghost key's sk-svc_ secret; shown this once" }) }, closed);

export const GhostList = t.Object({ sessions: t.Array(Ghost, { maxItems: GHOSTS_LIST_CAP, description: `live sessions, newest first, at most ${GHOSTS_LIST_CAP}` }) }, closed);

export const DestroyedGhost = t.Object(
  {
    id: t.String(),
    destroyed: t.Literal(true),
    destroyed_at: Time,
    reason: t.Union([t.Literal("destroyed"), t.Literal("expired")], { description: "destroyed by a call, or expired (the scheduler's purge)" }),
  },
  closed,
);
