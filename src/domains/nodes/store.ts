/**
 * The nodes table (migration 0016): the only SQL of the area. A row is an enrolled node: its
 * key's sha256, the operator's and its steward's gates, and what its latest heartbeat said.
 */
import type { Context } from "../../context.ts";

export interface NodeRow {
  id: string;
  name: string;
  account_id: string | null;
  kinds: string;
  key_sha256: string;
  key_prefix: string;
  approved: number;
  approved_at: number | null;
  disabled: number;
  draining: number;
  endpoint: string | null;
  dispatch_secret_sealed: string | null;
  dispatch_secret_sha256: string | null;
  version: string | null;
  offered_kinds: string | null;
  languages: string;
  models: string;
  capacity: number;
  sandbox_available: number;
  sandbox_reason: string | null;
  posture: string | null;
  speed_factor: number | null;
  clamp_count: number;
  calls_ok: number;
  calls_failed: number;
  latency_ms: number | null;
  last_heartbeat_at: number | null;
  unreachable_at: number | null;
  created_at: number;
  updated_at: number;
}

export function insertNode(
  ctx: Context,
  row: { id: string; name: string; accountId: string | null; kinds: string[]; keySha256: string; keyPrefix: string },
): void {
  const now = ctx.clock.now();
  ctx.db
    .query("INSERT INTO nodes (id, name, account_id, kinds, key_sha256, key_prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    .run(row.id, row.name, row.accountId, JSON.stringify(row.kinds), row.keySha256, row.keyPrefix, now, now);
}

export const getNodeRow = (ctx: Context, id: string): NodeRow | null => ctx.db.query<NodeRow, [string]>("SELECT * FROM nodes WHERE id = ?").get(id);

export const nodeIdByKey = (ctx: Context, keySha256: string): string | null =>
  ctx.db.query<{ id: string }, [string]>("SELECT id FROM nodes WHERE key_sha256 = ?").get(keySha256)?.id ?? null;

/** Every node in enrolment order (the registry's order). */
export const allNodeRows = (ctx: Context): NodeRow[] => ctx.db.query<NodeRow, []>("SELECT * FROM nodes ORDER BY created_at, rowid").all();

/**
 * Nodes that could take work: approved, not gated, sandboxes available, heard from since
 * `freshSince`, reachable at a known endpoint with a dispatch secret. The language, kind and
 * capacity checks are the fleet's (fleet.ts), over these few rows.
 */
export const dispatchableRows = (ctx: Context, freshSince: number): NodeRow[] =>
  ctx.db
    .query<NodeRow, [number]>(
      `SELECT * FROM nodes
       WHERE approved = 1 AND disabled = 0 AND draining = 0 AND sandbox_available = 1 AND unreachable_at IS NULL
         AND endpoint IS NOT NULL AND dispatch_secret_sealed IS NOT NULL AND last_heartbeat_at >= ?
       ORDER BY created_at, rowid`,
    )
    .all(freshSince);

export function setApproved(ctx: Context, id: string, approved: boolean): void {
  const now = ctx.clock.now();
  ctx.db
    .query("UPDATE nodes SET approved = ?, approved_at = CASE WHEN ? = 1 THEN coalesce(approved_at, ?) ELSE NULL END, updated_at = ? WHERE id = ?")
    .run(approved ? 1 : 0, approved ? 1 : 0, now, now, id);
}

export function setGate(ctx: Context, id: string, gate: "disabled" | "draining", on: boolean): void {
  // The column name comes from the closed union above, never from input.
  const column = gate === "disabled" ? "disabled" : "draining";
  ctx.db.query(`UPDATE nodes SET ${column} = ?, updated_at = ? WHERE id = ?`).run(on ? 1 : 0, ctx.clock.now(), id);
}

export interface HeartbeatFields {
  endpoint: string;
  secretSealed: string | null;
  secretSha256: string;
  version: string;
  offeredKinds: string[] | null;
  languages: string[];
  models: string[];
  capacity: number;
  sandboxAvailable: boolean;
  sandboxReason: string | null;
  posture: string | null;
  speedFactor: number | null;
  clamped: boolean;
}

/** Records a heartbeat; a null secretSealed keeps the stored one (the node sent the same secret). */
export function recordHeartbeat(ctx: Context, id: string, f: HeartbeatFields): void {
  const now = ctx.clock.now();
  ctx.db
    .query(
      `UPDATE nodes SET endpoint = ?, dispatch_secret_sealed = coalesce(?, dispatch_secret_sealed), dispatch_secret_sha256 = ?,
         version = ?, offered_kinds = ?, languages = ?, models = ?, capacity = ?, sandbox_available = ?, sandbox_reason = ?,
         posture = ?, speed_factor = coalesce(?, speed_factor), clamp_count = clamp_count + ?,
         last_heartbeat_at = ?, unreachable_at = NULL, updated_at = ?
       WHERE id = ?`,
    )
    .run(
      f.endpoint,
      f.secretSealed,
      f.secretSha256,
      f.version,
      f.offeredKinds === null ? null : JSON.stringify(f.offeredKinds),
      JSON.stringify(f.languages),
      JSON.stringify(f.models),
      f.capacity,
      f.sandboxAvailable ? 1 : 0,
      f.sandboxReason,
      f.posture,
      f.speedFactor,
      f.clamped ? 1 : 0,
      now,
      now,
      id,
    );
}

/** Nodes heard from before `staleBefore` (or never since enrolment) not yet marked unreachable. */
export const staleRows = (ctx: Context, staleBefore: number): NodeRow[] =>
  ctx.db.query<NodeRow, [number]>("SELECT * FROM nodes WHERE unreachable_at IS NULL AND last_heartbeat_at IS NOT NULL AND last_heartbeat_at < ?").all(staleBefore);

/** Marks a node unreachable unless a heartbeat arrived meanwhile (true when it was marked). */
export function markUnreachable(ctx: Context, id: string, staleBefore: number): boolean {
  const now = ctx.clock.now();
  return (
    ctx.db
      .query("UPDATE nodes SET unreachable_at = ?, updated_at = ? WHERE id = ? AND unreachable_at IS NULL AND last_heartbeat_at < ?")
      .run(now, now, id, staleBefore).changes > 0
  );
}

/** One gateway→node call: answered or failed; `latencyMs` (the call's overhead) moves the average by a fifth. */
export function recordCall(ctx: Context, id: string, ok: boolean, latencyMs: number | null): void {
  const latency = latencyMs === null ? null : Math.max(0, Math.round(latencyMs));
  ctx.db
    .query(
      `UPDATE nodes SET calls_ok = calls_ok + ?, calls_failed = calls_failed + ?,
         latency_ms = CASE WHEN ?3 IS NULL THEN latency_ms WHEN latency_ms IS NULL THEN ?3 ELSE (latency_ms * 4 + ?3 + 2) / 5 END
       WHERE id = ?4`,
    )
    .run(ok ? 1 : 0, ok ? 0 : 1, latency, id);
}
