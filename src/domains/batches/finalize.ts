/**
 * How a batch ends, once no line of it is in flight:
 *
 * 1. finalizing: lines never started (the batch was cancelled, expired or stopped) go to the
 *    error file with error.code batch_cancelled, batch_expired or the stop's class — so every
 *    input line ends in exactly one of the two files, and request_counts.total = completed +
 *    failed. A page of lines per transaction; each line's batch_lines row marks it done, so a
 *    restart in the middle goes on where it stopped.
 * 2. terminal, in one transaction: the output and error files are published (those with lines),
 *    the input file's content is destroyed (its record stays until it expires; …/content then
 *    answers 410), the status and its time are set, and batch_completed or batch_failed is
 *    queued in the outbox. The status:
 *      cancelling                      → cancelled (no event)
 *      stopped by its window           → expired   (batch_failed, error_class batch_expired)
 *      stopped by a batch-level refusal → failed   (batch_failed, error_class: the refusal's type)
 *      every line done, ≥ 1 succeeded  → completed (batch_completed)
 *      every line done, none succeeded → failed    (batch_failed, error_class: the most common line error)
 */
import type { Context } from "../../context.ts";
import { fileLines, publishOutputFile, purgeFileContent, writeOutputLine } from "../files/index.ts";
import { notRunLine, parseInputLine } from "./lines.ts";
import { type BatchRow, type BatchStatus, batchRow, commonErrorType, finishLine, nextUnstarted, updateBatch } from "./store.ts";

const PAGE = 500;

export const CANCELLED = "batch_cancelled";
export const EXPIRED = "batch_expired";

const NOT_RUN_MESSAGES: Record<string, string> = {
  [CANCELLED]: "the batch was cancelled before this line ran",
  [EXPIRED]: "the batch's completion window closed before this line ran",
};

/** The stop that keeps a batch's remaining lines from running, or null while it runs on. */
export function stopOf(row: BatchRow): string | null {
  if (row.status === "cancelling" || row.status === "cancelled") return CANCELLED;
  return row.stop_reason;
}

function terminal(ctx: Context, row: BatchRow): { status: BatchStatus; errorClass: string | null; message: string | null } {
  const stop = stopOf(row);
  if (stop === CANCELLED) return { status: "cancelled", errorClass: null, message: null };
  if (stop === EXPIRED) return { status: "expired", errorClass: EXPIRED, message: row.error_message };
  if (stop) return { status: "failed", errorClass: stop, message: row.error_message };
  if (row.completed > 0 || row.total === 0) return { status: "completed", errorClass: null, message: null };
  const common = commonErrorType(ctx, row.id) ?? "all_lines_failed";
  return { status: "failed", errorClass: common, message: `no line succeeded; most failed with ${common} (see the error file)` };
}

/** Step 1 for lines never started: each to the error file, a page per transaction. */
function failUnstarted(ctx: Context, row: BatchRow): void {
  const code = stopOf(row) ?? "not_run";
  const message = NOT_RUN_MESSAGES[code] ?? `the batch stopped (${code}) before this line ran${row.error_message ? `: ${row.error_message}` : ""}`;
  for (let from = nextUnstarted(ctx, row.id); from <= row.total; ) {
    const page = fileLines(ctx, row.input_file_id, from, PAGE);
    const to = page.length ? page[page.length - 1]!.lineNo : row.total;
    const ids = new Map(page.map((l) => [l.lineNo, parseInputLine(l.text).custom_id]));
    ctx.tx.run(() => {
      // A line whose text cannot be read any more still gets its place in the error file (custom_id null).
      for (let no = from; no <= to; no++) {
        writeOutputLine(ctx, row.error_file_id, no, notRunLine(ids.get(no) ?? null, code, message));
        finishLine(ctx, row.id, no, { state: "failed", statusCode: null, errorType: code, receiptId: null, cost: 0 });
      }
    });
    from = to + 1;
  }
}

const TIME_COLUMN: Partial<Record<BatchStatus, string>> = { completed: "completed_at", failed: "failed_at", expired: "expired_at", cancelled: "cancelled_at" };

/** Ends a batch whose lines have all finished or will not start (the runner calls it with nothing in flight). */
export function finalizeBatch(ctx: Context, id: string): BatchRow {
  let row = batchRow(ctx, id)!;
  if (row.status === "validating" || row.status === "in_progress") {
    ctx.tx.run(() => updateBatch(ctx, id, "status = 'finalizing', finalizing_at = ?", [ctx.clock.now()]));
    row = batchRow(ctx, id)!;
  }
  failUnstarted(ctx, row);
  ctx.tx.run(() => {
    const r = batchRow(ctx, id)!;
    const end = terminal(ctx, r);
    const outputReady = publishOutputFile(ctx, { id: r.output_file_id, accountId: r.account_id, filename: `${r.id}_output.jsonl` });
    const errorReady = publishOutputFile(ctx, { id: r.error_file_id, accountId: r.account_id, filename: `${r.id}_error.jsonl` });
    purgeFileContent(ctx, r.input_file_id, "batch_ended");
    const now = ctx.clock.now();
    updateBatch(ctx, id, `status = ?, ${TIME_COLUMN[end.status]} = ?, error_class = ?, error_message = ?, output_ready = ?, error_ready = ?, finalizing_at = coalesce(finalizing_at, ?)`, [
      end.status,
      now,
      end.errorClass,
      end.message,
      outputReady ? 1 : 0,
      errorReady ? 1 : 0,
      now,
    ]);
    if (end.status === "cancelled") return;
    const payload: Record<string, unknown> = {
      batch_id: r.id,
      endpoint: r.endpoint,
      status: end.status,
      request_counts: { total: r.total, completed: r.completed, failed: r.failed },
    };
    if (end.status === "completed") ctx.outbox.emit("batch_completed", r.account_id, payload);
    else ctx.outbox.emit("batch_failed", r.account_id, { ...payload, error_class: end.errorClass });
  });
  return batchRow(ctx, id)!;
}
