/**
 * The batches tables (migrations/0022_batches.sql). Only this area's code names them.
 */
import type { Context } from "../../context.ts";

export type BatchStatus = "validating" | "in_progress" | "finalizing" | "completed" | "failed" | "expired" | "cancelling" | "cancelled";

export const TERMINAL: readonly BatchStatus[] = ["completed", "failed", "expired", "cancelled"];
export const ACTIVE: readonly BatchStatus[] = ["validating", "in_progress", "finalizing", "cancelling"];

export interface BatchRow {
  id: string;
  account_id: string;
  key_id: string;
  input_file_id: string;
  endpoint: string;
  completion_window: string;
  metadata: string | null;
  status: BatchStatus;
  stop_reason: string | null;
  error_class: string | null;
  error_message: string | null;
  total: number;
  completed: number;
  failed: number;
  cost_micro_usd: number;
  input_tokens: number;
  output_tokens: number;
  output_file_id: string;
  error_file_id: string;
  output_ready: number;
  error_ready: number;
  created_at: number;
  in_progress_at: number | null;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  expires_at: number;
}

export type NewBatch = Pick<BatchRow, "id" | "account_id" | "key_id" | "input_file_id" | "endpoint" | "completion_window" | "metadata" | "total" | "output_file_id" | "error_file_id" | "created_at" | "expires_at">;

export function insertBatch(ctx: Context, b: NewBatch): void {
  ctx.db
    .query(
      `INSERT INTO batches (id, account_id, key_id, input_file_id, endpoint, completion_window, metadata, status, total, output_file_id, error_file_id, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'validating', ?, ?, ?, ?, ?)`,
    )
    .run(b.id, b.account_id, b.key_id, b.input_file_id, b.endpoint, b.completion_window, b.metadata, b.total, b.output_file_id, b.error_file_id, b.created_at, b.expires_at);
}

export const batchRow = (ctx: Context, id: string): BatchRow | null => ctx.db.query<BatchRow, [string]>("SELECT * FROM batches WHERE id = ?").get(id);

export const ownBatchRow = (ctx: Context, accountId: string, id: string): BatchRow | null =>
  ctx.db.query<BatchRow, [string, string]>("SELECT * FROM batches WHERE id = ? AND account_id = ?").get(id, accountId);

/** Newest first (seq: creation order, even within one millisecond); `after` continues below a batch of the previous page. */
export function batchRows(ctx: Context, accountId: string, limit: number, afterId?: string): BatchRow[] {
  if (afterId) {
    return ctx.db
      .query<BatchRow, [string, string, number]>("SELECT * FROM batches WHERE account_id = ? AND seq < (SELECT seq FROM batches WHERE id = ?) ORDER BY seq DESC LIMIT ?")
      .all(accountId, afterId, limit);
  }
  return ctx.db.query<BatchRow, [string, number]>("SELECT * FROM batches WHERE account_id = ? ORDER BY seq DESC LIMIT ?").all(accountId, limit);
}

const inList = (statuses: readonly string[]) => statuses.map((s) => `'${s}'`).join(", ");

export const activeBatchRows = (ctx: Context): BatchRow[] => ctx.db.query<BatchRow, []>(`SELECT * FROM batches WHERE status IN (${inList(ACTIVE)}) ORDER BY created_at`).all();

export const activeCount = (ctx: Context, accountId: string): number =>
  ctx.db.query<{ n: number }, [string]>(`SELECT count(*) AS n FROM batches WHERE account_id = ? AND status IN (${inList(ACTIVE)})`).get(accountId)!.n;

export const batchOnFile = (ctx: Context, fileId: string): BatchRow | null => ctx.db.query<BatchRow, [string]>("SELECT * FROM batches WHERE input_file_id = ?").get(fileId);

/** Sets columns of a batch: `sets` is "col = ?, …" with its values. */
export function updateBatch(ctx: Context, id: string, sets: string, values: (string | number | null)[]): void {
  ctx.db.query(`UPDATE batches SET ${sets} WHERE id = ?`).run(...values, id);
}

// ---- lines ----

export function claimLine(ctx: Context, batchId: string, lineNo: number): void {
  ctx.db.query("INSERT INTO batch_lines (batch_id, line_no, state, started_at) VALUES (?, ?, 'running', ?)").run(batchId, lineNo, ctx.clock.now());
}

export interface LineOutcome {
  state: "succeeded" | "failed";
  statusCode: number | null;
  errorType: string | null;
  receiptId: string | null;
  cost: number;
}

/** Records a line's end (claimed: an update; never started: an insert), and counts it on its batch. */
export function finishLine(ctx: Context, batchId: string, lineNo: number, o: LineOutcome, tokens: { input: number; output: number } = { input: 0, output: 0 }): void {
  const now = ctx.clock.now();
  ctx.db
    .query(
      `INSERT INTO batch_lines (batch_id, line_no, state, status_code, error_type, receipt_id, cost_micro_usd, started_at, finished_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)
       ON CONFLICT (batch_id, line_no) DO UPDATE SET state = ?3, status_code = ?4, error_type = ?5, receipt_id = ?6, cost_micro_usd = ?7, finished_at = ?8`,
    )
    .run(batchId, lineNo, o.state, o.statusCode, o.errorType, o.receiptId, o.cost, now);
  const counter = o.state === "succeeded" ? "completed" : "failed";
  ctx.db
    .query(`UPDATE batches SET ${counter} = ${counter} + 1, cost_micro_usd = cost_micro_usd + ?, input_tokens = input_tokens + ?, output_tokens = output_tokens + ? WHERE id = ?`)
    .run(o.cost, tokens.input, tokens.output, batchId);
}

/** Lines left "running" (a process died while they ran), of every batch. */
export const runningLines = (ctx: Context): { batch_id: string; line_no: number }[] =>
  ctx.db.query<{ batch_id: string; line_no: number }, []>("SELECT batch_id, line_no FROM batch_lines WHERE state = 'running'").all();

/** The line after the last one started (1-based). */
export const nextUnstarted = (ctx: Context, batchId: string): number =>
  (ctx.db.query<{ n: number | null }, [string]>("SELECT max(line_no) AS n FROM batch_lines WHERE batch_id = ?").get(batchId)!.n ?? 0) + 1;

/** The error type most failed lines share (the class of a batch in which no line succeeded). */
export const commonErrorType = (ctx: Context, batchId: string): string | null =>
  ctx.db
    .query<{ error_type: string }, [string]>("SELECT error_type FROM batch_lines WHERE batch_id = ? AND state = 'failed' AND error_type IS NOT NULL GROUP BY error_type ORDER BY count(*) DESC, error_type LIMIT 1")
    .get(batchId)?.error_type ?? null;
