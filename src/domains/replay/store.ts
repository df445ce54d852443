/**
 * The replay area's rows: replay_capsules (metadata, the original receipt as signed, and the
 * sealed request until DELETE destroys it) and replay_runs (each replay's receipt and verdict).
 * The only file that names them in SQL.
 */
import type { Context } from "../../context.ts";

export interface StoredReceipt {
  id: string;
  receipt: string;
  signature: string;
  signer: string;
}

export interface CapsuleParameters {
  max_tokens: number | null;
  temperature: number | null;
  json: boolean;
}

export interface CapsuleRecord {
  id: string;
  accountId: string;
  original: StoredReceipt;
  runId: string | null;
  model: string;
  messageCount: number;
  parameters: CapsuleParameters;
  requestSha256: string;
  outputSha256: string;
  contextRoot: string | null;
  sourceSet: { id: string; fingerprint: string } | null;
  /** The request, sealed (AES-256-GCM, AAD bound to the row); null once destroyed. */
  sealed: string | null;
  destroyedAt: number | null;
  createdAt: number;
}

export interface ReplayRecord {
  receiptId: string;
  outputSha256: string;
  matches: boolean;
  createdAt: number;
}

interface Row {
  id: string;
  account_id: string;
  receipt_id: string;
  receipt: string;
  signature: string;
  signer: string;
  run_id: string | null;
  model: string;
  message_count: number;
  parameters: string;
  request_sha256: string;
  output_sha256: string;
  context_root: string | null;
  source_set_id: string | null;
  source_set_fingerprint: string | null;
  sealed: string | null;
  destroyed_at: number | null;
  created_at: number;
}

const COLUMNS = `id, account_id, receipt_id, receipt, signature, signer, run_id, model, message_count, parameters, request_sha256, output_sha256,
  context_root, source_set_id, source_set_fingerprint, sealed, destroyed_at, created_at`;

const recordOf = (r: Row): CapsuleRecord => ({
  id: r.id,
  accountId: r.account_id,
  original: { id: r.receipt_id, receipt: r.receipt, signature: r.signature, signer: r.signer },
  runId: r.run_id,
  model: r.model,
  messageCount: r.message_count,
  parameters: JSON.parse(r.parameters) as CapsuleParameters,
  requestSha256: r.request_sha256,
  outputSha256: r.output_sha256,
  contextRoot: r.context_root,
  sourceSet: r.source_set_id === null ? null : { id: r.source_set_id, fingerprint: r.source_set_fingerprint ?? "" },
  sealed: r.sealed,
  destroyedAt: r.destroyed_at,
  createdAt: r.created_at,
});

export function insertCapsule(ctx: Context, c: CapsuleRecord): void {
  ctx.db
    .query(
      `INSERT INTO replay_capsules (${COLUMNS.replaceAll(/\s+/g, " ")})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      c.id,
      c.accountId,
      c.original.id,
      c.original.receipt,
      c.original.signature,
      c.original.signer,
      c.runId,
      c.model,
      c.messageCount,
      JSON.stringify(c.parameters),
      c.requestSha256,
      c.outputSha256,
      c.contextRoot,
      c.sourceSet?.id ?? null,
      c.sourceSet?.fingerprint ?? null,
      c.sealed,
      c.destroyedAt,
      c.createdAt,
    );
}

export function capsuleById(ctx: Context, id: string): CapsuleRecord | null {
  const row = ctx.db.query<Row, [string]>(`SELECT ${COLUMNS} FROM replay_capsules WHERE id = ?`).get(id);
  return row ? recordOf(row) : null;
}

/** One account's capsules, newest first. */
export function capsulesOf(ctx: Context, accountId: string, limit: number): CapsuleRecord[] {
  return ctx.db.query<Row, [string, number]>(`SELECT ${COLUMNS} FROM replay_capsules WHERE account_id = ? ORDER BY seq DESC LIMIT ?`).all(accountId, limit).map(recordOf);
}

export function countCapsules(ctx: Context, accountId: string): number {
  return ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM replay_capsules WHERE account_id = ?").get(accountId)!.n;
}

/** Overwrites the sealed request with NULL; the row, its fingerprints and its replays stay. */
export function destroyContent(ctx: Context, id: string, at: number): void {
  ctx.db.query("UPDATE replay_capsules SET sealed = NULL, destroyed_at = ? WHERE id = ? AND destroyed_at IS NULL").run(at, id);
}

export function insertReplay(ctx: Context, capsuleId: string, r: ReplayRecord): void {
  ctx.db
    .query("INSERT INTO replay_runs (capsule_id, receipt_id, output_sha256, matches, created_at) VALUES (?, ?, ?, ?, ?)")
    .run(capsuleId, r.receiptId, r.outputSha256, r.matches ? 1 : 0, r.createdAt);
}

export function replaysOf(ctx: Context, capsuleId: string): { count: number; last: ReplayRecord | null } {
  const count = ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM replay_runs WHERE capsule_id = ?").get(capsuleId)!.n;
  const last = ctx.db
    .query<{ receipt_id: string; output_sha256: string; matches: number; created_at: number }, [string]>(
      "SELECT receipt_id, output_sha256, matches, created_at FROM replay_runs WHERE capsule_id = ? ORDER BY seq DESC LIMIT 1",
    )
    .get(capsuleId);
  return { count, last: last ? { receiptId: last.receipt_id, outputSha256: last.output_sha256, matches: last.matches === 1, createdAt: last.created_at } : null };
}
