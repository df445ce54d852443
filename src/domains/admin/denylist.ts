/**
 * The payload denylist: request bodies the operator refuses outright, identified by the full
 * sha256 of their bytes. The check runs in the app's body hook, before any handler or
 * upstream sees the body (core/body.ts); here is what it checks against.
 */
import type { Actor } from "../../core/audit.ts";
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";

interface Row {
  sha256: string;
  reason: string | null;
  created_at: number;
  hits: number;
  last_hit_at: number | null;
}

export interface DenyEntry {
  sha256: string;
  reason: string | null;
  created_at: string;
  hits: number;
  last_hit_at: string | null;
}

const view = (r: Row): DenyEntry => ({
  sha256: r.sha256,
  reason: r.reason,
  created_at: isoTime(r.created_at),
  hits: r.hits,
  last_hit_at: r.last_hit_at === null ? null : isoTime(r.last_hit_at),
});

/**
 * Hot path, on every request body (`sha256`: the body's digest, or how to compute it). Whether
 * the list has any entry comes from the read cache (its trigger, migration 0055, moves the
 * counter on every add and remove, from any process), so the usual empty list costs neither a
 * read nor the body's hash; otherwise one indexed read. No write unless it is a hit (ordinary
 * requests never take the write lock); a hit is counted so operators see it working.
 */
export function isDenied(ctx: Context, sha256: string | (() => string)): boolean {
  if (!ctx.reads.get("denylist", "listed", () => ctx.db.query("SELECT 1 FROM denylist LIMIT 1").get() !== null)) return false;
  const digest = typeof sha256 === "string" ? sha256 : sha256();
  if (!ctx.db.query("SELECT 1 FROM denylist WHERE sha256 = ?").get(digest)) return false;
  ctx.db.query("UPDATE denylist SET hits = hits + 1, last_hit_at = ? WHERE sha256 = ?").run(ctx.clock.now(), digest);
  return true;
}

/** Adds a digest, or updates the reason of one already listed. */
export function addDenied(ctx: Context, input: { sha256: string; reason?: string | null; actor: Actor }): { entry: DenyEntry; created: boolean } {
  const sha256 = input.sha256.toLowerCase();
  return ctx.tx.run(() => {
    const existed = ctx.db.query("SELECT 1 FROM denylist WHERE sha256 = ?").get(sha256) !== null;
    const row = ctx.db
      .query<Row, [string, string | null, number]>(
        `INSERT INTO denylist (sha256, reason, created_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (sha256) DO UPDATE SET reason = coalesce(?2, reason) RETURNING *`,
      )
      .get(sha256, input.reason ?? null, ctx.clock.now())!;
    ctx.audit.record(input.actor, "denylist.add", sha256, input.reason ? { reason: input.reason } : {});
    return { entry: view(row), created: !existed };
  });
}

export function removeDenied(ctx: Context, input: { sha256: string; actor: Actor }): void {
  const sha256 = input.sha256.toLowerCase();
  ctx.tx.run(() => {
    if (ctx.db.query("DELETE FROM denylist WHERE sha256 = ?").run(sha256).changes === 0) throw notFound("denylist entry");
    ctx.audit.record(input.actor, "denylist.remove", sha256);
  });
}

export function listDenied(ctx: Context): DenyEntry[] {
  return ctx.db.query<Row, []>("SELECT * FROM denylist ORDER BY created_at DESC, sha256").all().map(view);
}
