/** The guardrails area's SQL: guardrails and guardrail_blocks (migrations/0023_guardrails.sql). */
import type { Context } from "../../context.ts";

export type Direction = "input" | "output" | "both";
export type Action = "allow" | "redact" | "block";

export interface DetectorSpec {
  type: string;
  direction: Direction;
  action: Action;
  options: Record<string, unknown>;
}

export interface GuardrailRow {
  id: string;
  account_id: string;
  name: string;
  detectors: DetectorSpec[];
  scope_keys: string[] | null;
  scope_models: string[] | null;
  created_at: number;
}

interface StoredRow {
  id: string;
  account_id: string;
  name: string;
  detectors: string;
  scope_keys: string | null;
  scope_models: string | null;
  created_at: number;
}

const COLUMNS = "id, account_id, name, detectors, scope_keys, scope_models, created_at";

const parse = (r: StoredRow): GuardrailRow => ({
  ...r,
  detectors: JSON.parse(r.detectors) as DetectorSpec[],
  scope_keys: r.scope_keys === null ? null : (JSON.parse(r.scope_keys) as string[]),
  scope_models: r.scope_models === null ? null : (JSON.parse(r.scope_models) as string[]),
});

export function insertGuardrail(ctx: Context, row: GuardrailRow): void {
  ctx.db
    .query(`INSERT INTO guardrails (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`)
    .run(row.id, row.account_id, row.name, JSON.stringify(row.detectors), row.scope_keys && JSON.stringify(row.scope_keys), row.scope_models && JSON.stringify(row.scope_models), row.created_at);
}

export function guardrailsOf(ctx: Context, accountId: string): GuardrailRow[] {
  return ctx.db.query<StoredRow, [string]>(`SELECT ${COLUMNS} FROM guardrails WHERE account_id = ? ORDER BY created_at DESC, id DESC`).all(accountId).map(parse);
}

export function countGuardrails(ctx: Context, accountId: string): number {
  return ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM guardrails WHERE account_id = ?").get(accountId)!.n;
}

/**
 * The ids of the account's guardrails, asked by every inference call (each guardrail is compiled
 * once: rows never change). From the read cache (core/read-cache.ts), whose counter migration
 * 0056's triggers move when any process makes or removes a guardrail. Shared between callers:
 * not to be modified.
 */
export function guardrailIdsOf(ctx: Context, accountId: string): readonly { id: string }[] {
  return ctx.reads.get("guardrails.ids", accountId, () => ctx.db.query<{ id: string }, [string]>("SELECT id FROM guardrails WHERE account_id = ?").all(accountId));
}

export function guardrailById(ctx: Context, id: string): GuardrailRow | null {
  const row = ctx.db.query<StoredRow, [string]>(`SELECT ${COLUMNS} FROM guardrails WHERE id = ?`).get(id);
  return row ? parse(row) : null;
}

export function deleteGuardrailRow(ctx: Context, accountId: string, id: string): boolean {
  return ctx.db.query("DELETE FROM guardrails WHERE id = ? AND account_id = ?").run(id, accountId).changes > 0;
}

export interface BlockRow {
  id: string;
  account_id: string;
  guardrail_id: string;
  detector: string;
  direction: "input" | "output";
  key_id: string | null;
  model: string;
  api: string;
  created_at: number;
}

export function insertBlock(ctx: Context, row: BlockRow): void {
  ctx.db
    .query("INSERT INTO guardrail_blocks (id, account_id, guardrail_id, detector, direction, key_id, model, api, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
    .run(row.id, row.account_id, row.guardrail_id, row.detector, row.direction, row.key_id, row.model, row.api, row.created_at);
}

/** The account's most recent blocks, newest first. */
export function recentBlocks(ctx: Context, accountId: string, limit: number): BlockRow[] {
  return ctx.db.query<BlockRow, [string, number]>("SELECT id, account_id, guardrail_id, detector, direction, key_id, model, api, created_at FROM guardrail_blocks WHERE account_id = ? ORDER BY seq DESC LIMIT ?").all(accountId, limit);
}
