/**
 * Ghost sessions: an ephemeral API key (kind "ghost") for a short-lived agent. It expires at
 * a fixed time, may be extended while its total lifetime stays within 24 hours of creation
 * (spec §3, §8), and ends by destroy or by a scheduler job at expiry: the key is revoked and
 * the ghost's metadata purged, leaving a tombstone that answers 404 to every read
 * (docs/ghosts.md). Spending under the key is the meter's, bounded by the optional budget.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { MicroUsd } from "../../core/money.ts";
import type { Context } from "../../context.ts";
import { mintKey, revokeKey, setKeyExpiry } from "../keys/index.ts";
import { keyInForce } from "../keys/index.ts";

export const GHOST_LIFETIME_SECS = { min: 60, max: 86_400 } as const;
/** Spec §8: GET /v1/ghost/sessions returns at most 100. */
export const GHOSTS_LIST_CAP = 100;
export const GHOST_EXPIRE_JOB = "ghosts.expire";

/**
 * The expiry job's unique key names the expiry it is for. Extending cancels the pending job
 * and queues one for the new time; if the old one is already running (so cannot be cancelled
 * and would block a second job under the same key), it finds the ghost extended and does
 * nothing, while the new job, under its own key, is queued regardless.
 */
const expiryJobKey = (ghostId: string, expiresAt: number) => `${GHOST_EXPIRE_JOB}:${ghostId}:${expiresAt}`;

export interface GhostInput {
  name: string | null;
  scopes: string[];
  budget: MicroUsd | null;
  lifetimeSecs: number;
}

interface GhostRow {
  id: string;
  account_id: string;
  key_id: string;
  name: string | null;
  scopes: string | null;
  budget_micro_usd: number | null;
  created_at: number;
  expires_at: number | null;
  destroyed_at: number | null;
  destroy_reason: "destroyed" | "expired" | null;
}

/** A live ghost: what the row holds until it is destroyed. */
type LiveRow = GhostRow & { scopes: string; expires_at: number };

export interface GhostView {
  id: string;
  key_id: string;
  key_prefix: string;
  name: string | null;
  scopes: string[];
  budget_micro_usd: number | null;
  spent_micro_usd: number;
  remaining_micro_usd: number | null;
  created_at: string;
  expires_at: string;
  /** The latest expires_at an extension can reach (creation + 24 h). */
  max_expires_at: string;
  seconds_remaining: number;
  /** Always "live": a destroyed or expired ghost is not shown (404). */
  status: "live";
}

export interface GhostDestroyed {
  id: string;
  destroyed: true;
  destroyed_at: string;
  reason: "destroyed" | "expired";
}

const maxLifetimeMs = GHOST_LIFETIME_SECS.max * 1000;

/** Mints the key and the ghost and queues its expiry, in one transaction; the secret is returned once. */
export function createGhost(ctx: Context, accountId: string, input: GhostInput): { ghost: GhostView; key: string } {
  const { min, max } = GHOST_LIFETIME_SECS;
  // The route's schema says the same; this keeps the rule for every caller (CLI, other services).
  if (!Number.isSafeInteger(input.lifetimeSecs) || input.lifetimeSecs < min || input.lifetimeSecs > max) {
    throw invalidField("lifetime_secs", `must be a whole number of seconds from ${min} to ${max}`);
  }
  const now = ctx.clock.now();
  const expiresAt = now + input.lifetimeSecs * 1000;
  return ctx.tx.run(() => {
    // The ghost's name stays on the ghost, not the key: the key row outlives the ghost (usage
    // history points at it), and a purge must leave no name behind.
    const minted = mintKey(ctx, { accountId, kind: "ghost", scopes: input.scopes, totalCap: input.budget, expiresAt });
    const row = ctx.db
      .query<LiveRow, (string | number | null)[]>(
        "INSERT INTO ghost_sessions (id, account_id, key_id, name, scopes, budget_micro_usd, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
      )
      .get(newId("gho"), accountId, minted.view.id, input.name, JSON.stringify(input.scopes), input.budget, now, expiresAt)!;
    scheduleExpiry(ctx, row.id, expiresAt);
    return { ghost: ghostView(ctx, row), key: minted.key };
  });
}

/** The account's live ghosts, newest first, at most GHOSTS_LIST_CAP. */
export function listGhosts(ctx: Context, accountId: string): GhostView[] {
  return ctx.db
    .query<LiveRow, [string, number, number]>(
      "SELECT * FROM ghost_sessions WHERE account_id = ? AND destroyed_at IS NULL AND expires_at > ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
    )
    .all(accountId, ctx.clock.now(), GHOSTS_LIST_CAP)
    .map((r) => ghostView(ctx, r));
}

export function getGhost(ctx: Context, accountId: string, id: string): GhostView {
  return ghostView(ctx, liveGhost(ctx, accountId, id));
}

/**
 * Moves the expiry (ghost and key) later by extendSecs, unless the total lifetime from creation
 * would pass 24 hours: then 409 ghost_lifetime_exceeded and nothing changes.
 */
export function extendGhost(ctx: Context, accountId: string, id: string, extendSecs: number): GhostView {
  if (!Number.isSafeInteger(extendSecs) || extendSecs < 1) throw invalidField("extend_secs", "must be a whole number of seconds, at least 1");
  return ctx.tx.run(() => {
    const row = liveGhost(ctx, accountId, id);
    const next = row.expires_at + extendSecs * 1000;
    if (next - row.created_at > maxLifetimeMs) {
      const left = Math.floor((row.created_at + maxLifetimeMs - row.expires_at) / 1000);
      throw new ApiError(409, "ghost_lifetime_exceeded", `a ghost session lives at most 24 hours from creation; it can be extended by at most ${left} more seconds`, {
        max_lifetime_secs: GHOST_LIFETIME_SECS.max,
        max_extend_secs: left,
        max_expires_at: isoTime(row.created_at + maxLifetimeMs),
      });
    }
    ctx.db.query("UPDATE ghost_sessions SET expires_at = ? WHERE id = ?").run(next, row.id);
    // The keys service has no "change expiry" (a key's expiry is otherwise fixed at mint), so
    // the ghost moves its own key's. Keys delegated below it keep their earlier expiry.
    setKeyExpiry(ctx, keyInForce(ctx, row.key_id).id, next);
    ctx.scheduler.cancel(expiryJobKey(row.id, row.expires_at));
    scheduleExpiry(ctx, row.id, next);
    return ghostView(ctx, { ...row, expires_at: next });
  });
}

/**
 * Revokes the key (cascading, key_revoked) and purges the ghost. Idempotent: destroying a
 * destroyed ghost answers the same tombstone; an expired ghost the job has not reached yet is
 * destroyed now.
 */
export function destroyGhost(ctx: Context, accountId: string, id: string): GhostDestroyed {
  return ctx.tx.run(() => {
    const row = ctx.db.query<GhostRow, [string]>("SELECT * FROM ghost_sessions WHERE id = ?").get(id);
    if (!row || row.account_id !== accountId) throw notFound("ghost session");
    return row.destroyed_at === null ? purge(ctx, row as LiveRow, "destroyed") : tombstone(row);
  });
}

/** The expiry job's work. Idempotent: a destroyed ghost, or one extended since, is left alone. */
export function expireGhost(ctx: Context, ghostId: string): boolean {
  return ctx.tx.run(() => {
    const row = ctx.db.query<GhostRow, [string]>("SELECT * FROM ghost_sessions WHERE id = ?").get(ghostId);
    if (!row || row.destroyed_at !== null || row.expires_at! > ctx.clock.now()) return false;
    purge(ctx, row as LiveRow, "expired");
    return true;
  });
}

export function registerGhostJobs(ctx: Context): void {
  ctx.scheduler.register(GHOST_EXPIRE_JOB, (job) => {
    expireGhost(ctx, String(job.payload.ghost_id));
  });
}

function scheduleExpiry(ctx: Context, ghostId: string, expiresAt: number): void {
  ctx.scheduler.schedule(GHOST_EXPIRE_JOB, { ghost_id: ghostId }, { runAt: expiresAt, uniqueKey: expiryJobKey(ghostId, expiresAt) });
}

/**
 * Live until destroyed AND before its expiry: a ghost past its expiry is gone for every read
 * even if the scheduler has not purged it yet (its key is already refused).
 */
function liveGhost(ctx: Context, accountId: string, id: string): LiveRow {
  const row = ctx.db.query<GhostRow, [string]>("SELECT * FROM ghost_sessions WHERE id = ?").get(id);
  if (!row || row.account_id !== accountId || row.destroyed_at !== null || row.expires_at! <= ctx.clock.now()) throw notFound("ghost session");
  return row as LiveRow;
}

/**
 * Revoke, purge, cancel. The row keeps only id, account, key and when/why it ended: the key
 * row (kind, prefix, caps, spend) stays with the keys, since usage events and holds refer to it.
 */
function purge(ctx: Context, row: LiveRow, reason: "destroyed" | "expired"): GhostDestroyed {
  const now = ctx.clock.now();
  revokeKey(ctx, row.account_id, keyInForce(ctx, row.key_id).id, reason === "expired" ? "ghost_expired" : "ghost_destroyed");
  ctx.db
    .query("UPDATE ghost_sessions SET name = NULL, scopes = NULL, budget_micro_usd = NULL, expires_at = NULL, destroyed_at = ?, destroy_reason = ? WHERE id = ?")
    .run(now, reason, row.id);
  ctx.scheduler.cancel(expiryJobKey(row.id, row.expires_at));
  return { id: row.id, destroyed: true, destroyed_at: isoTime(now), reason };
}

const tombstone = (row: GhostRow): GhostDestroyed => ({ id: row.id, destroyed: true, destroyed_at: isoTime(row.destroyed_at!), reason: row.destroy_reason! });

function ghostView(ctx: Context, row: LiveRow): GhostView {
  const key = keyInForce(ctx, row.key_id);
  const now = ctx.clock.now();
  const spent = ctx.meter.lifetimeSpent(key.id);
  return {
    id: row.id,
    key_id: key.id,
    key_prefix: key.prefix,
    name: row.name,
    scopes: JSON.parse(row.scopes) as string[],
    budget_micro_usd: row.budget_micro_usd,
    spent_micro_usd: spent,
    remaining_micro_usd: row.budget_micro_usd === null ? null : Math.max(0, row.budget_micro_usd - spent),
    created_at: isoTime(row.created_at),
    expires_at: isoTime(row.expires_at),
    max_expires_at: isoTime(row.created_at + maxLifetimeMs),
    seconds_remaining: Math.max(0, Math.floor((row.expires_at - now) / 1000)),
    status: "live",
  };
}
