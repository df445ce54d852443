/**
 * The relays' sweep (scheduler job relays.purge, every minute): content is destroyed as soon as
 * no one can read it any more, and content-free rows go after ENDED_RETENTION_MS.
 *
 * - Expired relays: ciphertext and access tokens destroyed (reason expired).
 * - Exhausted relays (max_accesses reached): destroyed once the last access token has lapsed,
 *   so whoever spent the last access can still fetch what it opened (reason exhausted).
 * - Dead access tokens are deleted; ended relays' rows (and objects) are deleted 30 days after
 *   their content went.
 * Revoked and locked relays were destroyed when that happened. Bounded per run.
 */
import type { Context } from "../../context.ts";
import { ENDED_RETENTION_MS } from "./limits.ts";
import { destroyContent, type DestroyReason } from "./store.ts";

export const PURGE_JOB = "relays.purge";
export const PURGE_EVERY_MS = 60_000;

export function purgeRelays(ctx: Context, limit = 500): { destroyed: number; deleted: number } {
  const now = ctx.clock.now();
  const ending = ctx.db
    .query<{ id: string; expired: number }, [number, number, number]>(
      `SELECT id, expires_at <= ?1 AS expired FROM relays
       WHERE content_destroyed_at IS NULL
         AND (expires_at <= ?1 OR (max_accesses IS NOT NULL AND accesses >= max_accesses AND coalesce(open_until, 0) <= ?2))
       LIMIT ?3`,
    )
    .all(now, now, limit);
  for (const r of ending) {
    const reason: DestroyReason = r.expired ? "expired" : "exhausted";
    ctx.tx.run(() => destroyContent(ctx, r.id, reason, now));
  }
  const deleted = ctx.tx.run(() => {
    ctx.db.query("DELETE FROM relay_access_tokens WHERE expires_at <= ?").run(now);
    const old = ctx.db
      .query<{ id: string }, [number, number]>("SELECT id FROM relays WHERE content_destroyed_at IS NOT NULL AND content_destroyed_at <= ? LIMIT ?")
      .all(now - ENDED_RETENTION_MS, limit)
      .map((r) => r.id);
    if (!old.length) return 0;
    const ids = JSON.stringify(old);
    ctx.db.query("DELETE FROM relay_objects WHERE relay_id IN (SELECT value FROM json_each(?))").run(ids);
    ctx.db.query("DELETE FROM relay_access_tokens WHERE relay_id IN (SELECT value FROM json_each(?))").run(ids);
    ctx.db.query("DELETE FROM relays WHERE id IN (SELECT value FROM json_each(?))").run(ids);
    return old.length;
  });
  return { destroyed: ending.length, deleted };
}
