/**
 * The batch runner: one per `svc serve` process, started before the server listens. It runs the
 * lines of every batch in progress, at most batches.concurrency in flight in all and
 * batches.line_concurrency per batch, taking one line from each batch in turn (a big batch does
 * not starve a small one).
 *
 * A line, start to end:
 *   claim (its batch_lines row, committed before anything is sent: a line is never run twice)
 *   → the key that created the batch, as it stands now (revoked, expired or suspended: the batch
 *     stops, failed with that class)
 *   → the inference pipeline, as its route would run it (reserve, upstream, settle, receipt)
 *   → its result in the output file, written in the settle's own transaction (billed ⇔ stored),
 *     or its error in the error file (nothing billed).
 * A retryable upstream failure (timeout, 429, 5xx, after fallback) is tried again, up to
 * batches.line_attempts, backing off; a frozen key (circuit breaker) or a suspended account
 * stops the batch; every other refusal (insufficient_credit, spend_cap_reached, a model that is
 * not there, an upstream 400) fails that line only and the batch goes on.
 *
 * Restart: lines a dead process left running are failed as interrupted (never re-sent: the
 * upstream may have seen them; nothing was billed, since a billed line's result commits with its
 * charge), and every batch not ended resumes at its first line never started.
 */
import { ApiError } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { fileLines, writeOutputLine } from "../files/index.ts";
import { completeBatchLine, retryableLineError } from "../inference/index.ts";
import { type ApiKeyPrincipal, principalOfKey } from "../keys/index.ts";
import { EXPIRED, finalizeBatch, stopOf } from "./finalize.ts";
import { failedLine, type InputLine, notRunLine, outputLine, parseInputLine } from "./lines.ts";
import { ACTIVE, activeBatchRows, type BatchRow, batchRow, claimLine, finishLine, nextUnstarted, runningLines, updateBatch } from "./store.ts";

declare module "../../context.ts" {
  interface Context {
    batchRunner: BatchRunner;
  }
}

/** Refusals that no later line of the batch can get past: the batch stops, failed with this class. */
const BATCH_STOPPERS = new Set(["api_key_revoked", "api_key_expired", "api_key_rotated", "invalid_api_key", "api_key_not_yet_valid", "account_suspended", "circuit_breaker_tripped"]);

const INTERRUPTED = "interrupted";
const INTERRUPTED_MESSAGE = "svc stopped while this line ran; it was not sent again (the upstream may have seen it; nothing was billed)";

const PREFETCH = 64;

interface Active {
  row: BatchRow;
  /** The next line to start (1-based). */
  next: number;
  buffer: { lineNo: number; text: string }[];
  inFlight: number;
  stop: string | null;
  finishing: boolean;
}

export class BatchRunner {
  private readonly active = new Map<string, Active>();
  private readonly tasks = new Set<Promise<void>>();
  private inFlight = 0;
  private running = false;
  private abort = new AbortController();

  constructor(private readonly ctx: Context) {}

  /** Fails lines a dead process left running, then resumes every batch not ended. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    this.failInterrupted();
    for (const row of activeBatchRows(this.ctx)) this.activate(row);
    this.pump();
  }

  /** Starts no more lines; lets those in flight finish for up to `graceMs`, then cuts them off (recorded as interrupted). */
  async stop(graceMs: number): Promise<void> {
    if (!this.running) return;
    this.running = false;
    const all = () => Promise.allSettled([...this.tasks]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = await Promise.race([all().then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs)))]);
    clearTimeout(timer);
    if (timedOut) {
      this.abort.abort();
      await all();
    }
    this.active.clear();
  }

  /** A batch was created, cancelled or expired: (re)load it and run. */
  wake(id: string): void {
    if (!this.running) return;
    const row = batchRow(this.ctx, id);
    if (!row) return;
    const b = this.active.get(id);
    if (b) b.stop ??= stopOf(row);
    else if (ACTIVE.includes(row.status)) this.activate(row);
    this.pump();
  }

  private failInterrupted(): void {
    for (const line of runningLines(this.ctx)) {
      const row = batchRow(this.ctx, line.batch_id);
      if (!row) continue;
      const text = fileLines(this.ctx, row.input_file_id, line.line_no, 1)[0];
      const customId = text && text.lineNo === line.line_no ? parseInputLine(text.text).custom_id : "";
      this.ctx.tx.run(() => {
        writeOutputLine(this.ctx, row.error_file_id, line.line_no, notRunLine(customId, INTERRUPTED, INTERRUPTED_MESSAGE));
        finishLine(this.ctx, row.id, line.line_no, { state: "failed", statusCode: null, errorType: INTERRUPTED, receiptId: null, cost: 0 });
      });
    }
  }

  private activate(row: BatchRow): void {
    if (row.status === "validating") {
      this.ctx.tx.run(() => updateBatch(this.ctx, row.id, "status = 'in_progress', in_progress_at = ?", [this.ctx.clock.now()]));
      row = batchRow(this.ctx, row.id)!;
    }
    let stop = stopOf(row);
    if (!stop && row.status === "in_progress" && this.ctx.clock.now() >= row.expires_at) {
      this.ctx.tx.run(() => updateBatch(this.ctx, row.id, "stop_reason = ?, error_message = ?", [EXPIRED, `the batch did not finish within its ${row.completion_window} completion window`]));
      stop = EXPIRED;
    }
    const next = row.status === "finalizing" ? row.total + 1 : nextUnstarted(this.ctx, row.id);
    this.active.set(row.id, { row, next, buffer: [], inFlight: 0, stop, finishing: false });
  }

  private pump(): void {
    if (!this.running) return;
    const { concurrency, line_concurrency: perBatch } = this.ctx.config.batches;
    for (let started = true; started && this.inFlight < concurrency; ) {
      started = false;
      // One line from each batch in turn.
      for (const b of this.active.values()) {
        if (this.inFlight >= concurrency) break;
        if (b.stop || b.finishing || b.inFlight >= perBatch || b.next > b.row.total) continue;
        const line = this.take(b);
        if (!line) continue;
        this.launch(b, line);
        started = true;
      }
    }
    for (const b of this.active.values()) this.maybeFinish(b);
  }

  private take(b: Active): { lineNo: number; text: string } | null {
    if (!b.buffer.length) b.buffer = fileLines(this.ctx, b.row.input_file_id, b.next, PREFETCH);
    const line = b.buffer.shift();
    if (!line) {
      // The content is gone (it is neither deleted nor purged while the batch runs): nothing more to start; finalizing accounts for the rest.
      b.next = b.row.total + 1;
      return null;
    }
    b.next = line.lineNo + 1;
    return line;
  }

  private track(work: Promise<void>): void {
    const task = work.catch((err: unknown) => this.ctx.log.error("batch runner task failed", { error: err instanceof Error ? err.message : String(err) }));
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  private launch(b: Active, line: { lineNo: number; text: string }): void {
    b.inFlight++;
    this.inFlight++;
    this.track(
      this.runLine(b, line.lineNo, parseInputLine(line.text)).finally(() => {
        b.inFlight--;
        this.inFlight--;
        this.pump();
      }),
    );
  }

  private maybeFinish(b: Active): void {
    if (b.finishing || b.inFlight > 0 || (!b.stop && b.next <= b.row.total)) return;
    b.finishing = true;
    this.track(
      (async () => {
        // Off the current turn: the last line's own commit hooks finish first.
        await Promise.resolve();
        finalizeBatch(this.ctx, b.row.id);
      })().finally(() => this.active.delete(b.row.id)),
    );
  }

  /** Stops the batch for every line not started yet (kept in the row: a restart honours it). */
  private stopBatch(b: Active, reason: string, message: string): void {
    if (b.stop) return;
    b.stop = reason;
    this.ctx.tx.run(() => updateBatch(this.ctx, b.row.id, "stop_reason = coalesce(stop_reason, ?), error_message = coalesce(error_message, ?)", [reason, message]));
  }

  private async runLine(b: Active, lineNo: number, input: InputLine): Promise<void> {
    const ctx = this.ctx;
    await ctx.tx.grouped(() => claimLine(ctx, b.row.id, lineNo));
    const fail = (err: ApiError) =>
      ctx.tx.grouped(() => {
        writeOutputLine(ctx, b.row.error_file_id, lineNo, failedLine(input.custom_id, err));
        finishLine(ctx, b.row.id, lineNo, { state: "failed", statusCode: err.status, errorType: err.type, receiptId: null, cost: 0 });
      });
    const notRun = (code: string, message: string) =>
      ctx.tx.grouped(() => {
        writeOutputLine(ctx, b.row.error_file_id, lineNo, notRunLine(input.custom_id, code, message));
        finishLine(ctx, b.row.id, lineNo, { state: "failed", statusCode: null, errorType: code, receiptId: null, cost: 0 });
      });

    let principal: ApiKeyPrincipal;
    try {
      principal = principalOfKey(ctx, b.row.key_id);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.stopBatch(b, err.type, `the batch's API key can no longer spend: ${err.message}`);
      return notRun(err.type, err.message);
    }

    const { line_attempts: attempts, retry_backoff_ms: backoff } = ctx.config.batches;
    for (let attempt = 1; ; attempt++) {
      try {
        await completeBatchLine(ctx, {
          endpoint: b.row.endpoint,
          principal,
          body: input.body,
          batchId: b.row.id,
          signal: this.abort.signal,
          within: (r) => {
            const receiptId = r.settlement.receipt?.id ?? null;
            writeOutputLine(ctx, b.row.output_file_id, lineNo, outputLine(input.custom_id, r.body, receiptId, r.settlement.cost));
            finishLine(ctx, b.row.id, lineNo, { state: "succeeded", statusCode: 200, errorType: null, receiptId, cost: r.settlement.cost }, { input: r.usage.input_tokens, output: r.usage.output_tokens });
          },
        });
        return;
      } catch (err) {
        if (this.abort.signal.aborted) return notRun(INTERRUPTED, INTERRUPTED_MESSAGE);
        if (!(err instanceof ApiError)) {
          ctx.log.error("a batch line failed inside svc", { batch_id: b.row.id, line: lineNo, error: err instanceof Error ? err.message : String(err) });
          return fail(new ApiError(500, "internal_error", "the line failed inside svc (logged); nothing was billed"));
        }
        if (retryableLineError(err) && attempt < attempts && !b.stop && (await this.pause(backoff * 2 ** (attempt - 1)))) continue;
        if (BATCH_STOPPERS.has(err.type)) this.stopBatch(b, err.type, err.message);
        return fail(err);
      }
    }
  }

  /** Waits before a retry; false when the runner is stopping instead. */
  private pause(ms: number): Promise<boolean> {
    if (this.abort.signal.aborted || !this.running) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.running), ms);
      this.abort.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(false);
      }, { once: true });
    });
  }
}

