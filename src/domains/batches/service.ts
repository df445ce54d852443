/**
 * Batches (spec §4.3 "Files and batches", §3, §6): an uploaded JSONL file's lines run through
 * the inference pipeline under the key that created the batch, each metered and receipted.
 * The runner (runner.ts) does the running; this file holds the rules of the routes.
 *
 *   validating → in_progress → finalizing → completed | failed
 *                    │  expires_at passes ───────────→ expired
 *                    └─ POST …/cancel → cancelling ──→ cancelled
 *
 * - Created from a file of purpose "batch" whose every line names the batch's endpoint; a file
 *   feeds one batch only (its content is destroyed when the batch ends).
 * - completion_window is "24h", as OpenAI's: a batch still running then stops, as expired.
 * - Cancel: lines in flight finish and are billed and returned; no further line starts; no event.
 */
import { unixSecs } from "../../core/clock.ts";
import { ApiError, conflict, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { fileLines, inputFile } from "../files/index.ts";
import { BATCH_ENDPOINTS } from "../inference/index.ts";
import { parseInputLine } from "./lines.ts";
import { ACTIVE, activeCount, type BatchRow, batchOnFile, batchRow, batchRows, insertBatch, ownBatchRow, updateBatch } from "./store.ts";

export const EXPIRE_JOB = "batches.expire";
export const COMPLETION_WINDOWS: Record<string, number> = { "24h": 24 * 3_600_000 };
export const BATCH_LIMIT = { min: 1, max: 100, default: 100 };

const MAX_METADATA_KEYS = 16;

export interface CreateInput {
  input_file_id: string;
  endpoint: string;
  completion_window: string;
  metadata?: Record<string, string> | null;
}

const secs = (ms: number | null): number | null => (ms === null ? null : unixSecs(ms));

export function batchView(b: BatchRow) {
  const errors = b.error_class && b.status === "failed" && b.error_message
    ? { object: "list" as const, data: [{ code: b.error_class, message: b.error_message, line: null, param: null }] }
    : null;
  return {
    id: b.id,
    object: "batch" as const,
    endpoint: b.endpoint,
    errors,
    input_file_id: b.input_file_id,
    completion_window: b.completion_window,
    status: b.status,
    output_file_id: b.output_ready ? b.output_file_id : null,
    error_file_id: b.error_ready ? b.error_file_id : null,
    created_at: unixSecs(b.created_at),
    in_progress_at: secs(b.in_progress_at),
    expires_at: unixSecs(b.expires_at),
    finalizing_at: secs(b.finalizing_at),
    completed_at: secs(b.completed_at),
    failed_at: secs(b.failed_at),
    expired_at: secs(b.expired_at),
    cancelling_at: secs(b.cancelling_at),
    cancelled_at: secs(b.cancelled_at),
    request_counts: { total: b.total, completed: b.completed, failed: b.failed },
    metadata: b.metadata === null ? null : (JSON.parse(b.metadata) as Record<string, string>),
    usage: {
      input_tokens: b.input_tokens,
      output_tokens: b.output_tokens,
      total_tokens: b.input_tokens + b.output_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
    cost_micro_usd: b.cost_micro_usd,
    error_class: b.error_class,
  };
}

export type BatchView = ReturnType<typeof batchView>;

export function ownBatch(ctx: Context, accountId: string, id: string): BatchRow {
  const row = ownBatchRow(ctx, accountId, id);
  if (!row) throw notFound("batch");
  return row;
}

function checkMetadata(metadata: CreateInput["metadata"]): string | null {
  if (metadata === undefined || metadata === null) return null;
  const entries = Object.entries(metadata);
  if (entries.length > MAX_METADATA_KEYS) throw invalidField("metadata", `at most ${MAX_METADATA_KEYS} keys`);
  for (const [k, v] of entries) {
    if (k.length > 64) throw invalidField("metadata", `key "${k.slice(0, 20)}…" is longer than 64 characters`);
    if (typeof v !== "string" || v.length > 512) throw invalidField(`metadata.${k}`, "must be a string of at most 512 characters");
  }
  return JSON.stringify(metadata);
}

/** Every line of the file must name the batch's endpoint (400 naming the first that does not). */
function checkLinesMatch(ctx: Context, fileId: string, endpoint: string): void {
  const PAGE = 1000;
  for (let from = 1; ; ) {
    const page = fileLines(ctx, fileId, from, PAGE);
    if (!page.length) return;
    for (const l of page) {
      const url = parseInputLine(l.text).url;
      if (url !== endpoint) {
        throw new ApiError(400, "invalid_file", `input_file_id: line ${l.lineNo} has url ${url}, not the batch's endpoint ${endpoint}; a batch runs one endpoint`, { param: "input_file_id", line: l.lineNo });
      }
    }
    from = page[page.length - 1]!.lineNo + 1;
  }
}

/** POST /v1/batches: checked, stored as validating, handed to the runner. */
export function createBatch(ctx: Context, accountId: string, keyId: string, input: CreateInput): BatchView {
  if (!BATCH_ENDPOINTS.includes(input.endpoint)) throw invalidField("endpoint", `must be one of ${BATCH_ENDPOINTS.join(", ")}`);
  const windowMs = COMPLETION_WINDOWS[input.completion_window];
  if (windowMs === undefined) throw invalidField("completion_window", `must be one of ${Object.keys(COMPLETION_WINDOWS).join(", ")}`);
  const metadata = checkMetadata(input.metadata);
  const file = inputFile(ctx, accountId, input.input_file_id, "batch", "input_file_id");
  const used = batchOnFile(ctx, file.id);
  if (used) throw conflict("file_in_use", `input_file_id: file ${file.id} already feeds batch ${used.id}; upload the file again for another batch`);
  checkLinesMatch(ctx, file.id, input.endpoint);
  const now = ctx.clock.now();
  const id = newId("batch");
  ctx.tx.run(() => {
    const active = activeCount(ctx, accountId);
    if (active >= ctx.config.batches.max_active_per_account) {
      throw conflict("batch_limit_reached", `this account has ${active} batches running; at most ${ctx.config.batches.max_active_per_account} at once (batches.max_active_per_account)`);
    }
    insertBatch(ctx, {
      id,
      account_id: accountId,
      key_id: keyId,
      input_file_id: file.id,
      endpoint: input.endpoint,
      completion_window: input.completion_window,
      metadata,
      total: file.line_count,
      output_file_id: newId("file"),
      error_file_id: newId("file"),
      created_at: now,
      expires_at: now + windowMs,
    });
    ctx.scheduler.schedule(EXPIRE_JOB, { batch_id: id }, { runAt: now + windowMs, uniqueKey: `batch-expire:${id}`, maxAttempts: 3 });
    ctx.tx.afterCommit(() => ctx.batchRunner.wake(id));
  });
  return batchView(ownBatch(ctx, accountId, id));
}

export interface ListResult {
  data: BatchView[];
  has_more: boolean;
}

/** GET /v1/batches: newest first, at most 100 a page; `after` continues from a batch id. */
export function listBatches(ctx: Context, accountId: string, limit: number, afterId?: string): ListResult {
  const after = afterId ? ownBatchRow(ctx, accountId, afterId) : undefined;
  if (afterId && !after) throw invalidField("query.after", "names no batch of this account");
  const rows = batchRows(ctx, accountId, limit + 1, after?.id);
  return { data: rows.slice(0, limit).map(batchView), has_more: rows.length > limit };
}

/** POST /v1/batches/:id/cancel: stops starting lines; idempotent while cancelling or cancelled. */
export function cancelBatch(ctx: Context, accountId: string, id: string): BatchView {
  const row = ownBatch(ctx, accountId, id);
  if (row.status === "cancelling" || row.status === "cancelled") return batchView(row);
  if (row.status !== "validating" && row.status !== "in_progress") {
    throw conflict("batch_not_cancellable", `batch ${row.id} is ${row.status}; only a validating or in-progress batch can be cancelled`);
  }
  ctx.tx.run(() => {
    updateBatch(ctx, row.id, "status = 'cancelling', cancelling_at = ?", [ctx.clock.now()]);
    ctx.tx.afterCommit(() => ctx.batchRunner.wake(row.id));
  });
  return batchView(ownBatch(ctx, accountId, id));
}

/** The expiry job: a batch still running when its window closes stops, and ends expired. */
export function expireBatch(ctx: Context, id: string): void {
  ctx.tx.run(() => {
    const row = batchRow(ctx, id);
    // Only a batch still starting lines; a cancelled or finalizing one ends as it is.
    if (!row || (row.status !== "validating" && row.status !== "in_progress") || row.stop_reason) return;
    updateBatch(ctx, id, "stop_reason = 'batch_expired', error_message = ?", [`the batch did not finish within its ${row.completion_window} completion window`]);
    ctx.tx.afterCommit(() => ctx.batchRunner.wake(id));
  });
}

/** Why a file may not be deleted now: a batch still running on it. */
export function fileInUse(ctx: Context, fileId: string): string | null {
  const b = batchOnFile(ctx, fileId);
  return b && ACTIVE.includes(b.status) ? `feeds batch ${b.id}, which is ${b.status}; cancel it first` : null;
}
