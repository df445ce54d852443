/**
 * One metered execution — a one-shot run or a session exec — exactly like an inference call:
 *
 *   reserve(price × timeout) → run on the backend → settle(price × measured time)
 *                                               or release (the sandbox failed: nothing billed)
 *
 * - Nothing runs before the reservation holds (credit, key caps up the delegation chain, the
 *   breaker: core/meter.ts), so concurrent runs can never spend past a balance.
 * - Measured time is wall time, at most the timeout, per millisecond rounded up (pricing.ts).
 *   A run the client abandoned, or whose session stopped under it, is killed and billed for
 *   the time it ran.
 * - A sandbox that could not run (runner_error) or a backend that cannot be reached is the
 *   gateway's failure: the hold is released and sandbox_failed fires, in one transaction.
 * - The settle, the sandbox_runs row and the session's counters commit together, group-
 *   committed with the other meter calls in flight. Receipts are metadata only: language,
 *   times, exit status, session and node — never code, input or output.
 */
import { constants } from "node:os";
import { isoTime } from "../../core/clock.ts";
import { newId } from "../../core/ids.ts";
import { DEFAULT_HOLD_TTL_MS, type Reservation, type Settlement } from "../../core/meter.ts";
import type { Context } from "../../context.ts";
import { BackendUnavailable, type SandboxBackend, type WorkspaceRef } from "./backend.ts";
import { asApiError, sandboxFailed } from "./errors.ts";
import { costOfMs, runPrice } from "./pricing.ts";
import type { LanguageName, RunIO, RunResult, RunSpec } from "./runner/index.ts";

export interface ExecutionRequest {
  accountId: string;
  keyId: string | null;
  language: LanguageName | null;
  spec: RunSpec;
  timeoutMs: number;
  runId: string | null;
  session: { id: string; ws: WorkspaceRef } | null;
  backend: SandboxBackend;
}

export interface ReceiptView {
  id: string;
  receipt: string;
  signature: string;
  signer: string;
}

/** The answer of a run (models.ts RunResult). */
export interface RunView {
  id: string;
  object: "sandbox.run";
  session_id: string | null;
  node_id: string | null;
  language: LanguageName | null;
  status: "ok" | "error" | "timeout" | "killed";
  exit_code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  timed_out: boolean;
  killed_reason: string | null;
  duration_ms: number;
  cost_micro_usd: number;
  run_id: string | null;
  receipt: ReceiptView | null;
  created_at: string;
}

export interface Executed {
  view: RunView;
  settlement: Settlement;
  reservation: Reservation;
}

/** Why a run was stopped from outside: the caller went away, or its session stopped. */
export type AbortCause = "client_disconnected" | "session_stopped";

/** The exit status a run reports: the program's own, or 128 + the signal that killed it (as a shell reports it). */
export function exitCodeOf(result: Pick<RunResult, "exit_code" | "signal">): number {
  if (result.exit_code !== null) return result.exit_code;
  const signal = result.signal ? (constants.signals as Record<string, number>)[result.signal] : undefined;
  return signal ? 128 + signal : 1;
}

/** What the run is reserved for: its price over its whole timeout. */
export function worstCase(ctx: Context, req: Pick<ExecutionRequest, "language" | "timeoutMs">): number {
  return costOfMs(runPrice(ctx.config.sandboxes, req.language), req.timeoutMs);
}

export function reserveExecution(ctx: Context, req: ExecutionRequest): Promise<Reservation> {
  return ctx.meter.reserveGrouped({
    accountId: req.accountId,
    keyId: req.keyId,
    amount: worstCase(ctx, req),
    kind: "sandbox",
    resource: req.language ?? "command",
    runId: req.runId,
    // The sweeper must not release the hold of a run still going: its timeout, and five minutes.
    holdTtlMs: Math.max(DEFAULT_HOLD_TTL_MS, req.timeoutMs + 5 * 60_000),
  });
}

/** Releases the hold of a run that failed for the gateway's reasons and fires sandbox_failed. */
function failed(ctx: Context, req: ExecutionRequest, r: Reservation, id: string, reason: "runner_error" | "node_unreachable", message: string): void {
  try {
    ctx.tx.run(() => {
      ctx.meter.release(r);
      ctx.outbox.emit("sandbox_failed", req.accountId, {
        sandbox_run_id: id,
        session_id: req.session?.id ?? null,
        node_id: req.backend.nodeId,
        language: req.language,
        reason,
        message: message.slice(0, 300),
      });
    });
  } catch (err) {
    // The sweeper releases the hold when its TTL passes; the event is what is lost.
    ctx.log.error("recording a failed sandbox run failed", { error: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * Runs a reserved execution to its end. Throws an ApiError for what the caller must fix (a bad
 * spec or path: released, not billed), sandbox_failed (503, released) when the sandbox itself
 * failed, or BackendUnavailable (503, released) when its node cannot be reached.
 */
export async function runReserved(ctx: Context, req: ExecutionRequest, r: Reservation, io: RunIO, abortCause: () => AbortCause | null = () => null): Promise<Executed> {
  const id = newId("sbx");
  const createdAt = ctx.clock.now();
  let result: RunResult;
  try {
    result = req.session ? await req.backend.exec(req.session.ws, req.spec, io) : await req.backend.run(req.spec, io);
  } catch (err) {
    if (err instanceof BackendUnavailable) {
      failed(ctx, req, r, id, "node_unreachable", err.message);
    } else {
      await ctx.meter.releaseGrouped(r).catch((e: unknown) => ctx.log.error("releasing a refused run's reservation failed", { error: String(e) }));
    }
    throw asApiError(err);
  }
  if (result.status === "runner_error") {
    failed(ctx, req, r, id, "runner_error", result.error ?? "the sandbox did not start");
    ctx.log.warn("sandbox run failed", { node_id: req.backend.nodeId, error: result.error });
    throw sandboxFailed(result.error ?? "the sandbox did not start");
  }
  const price = runPrice(ctx.config.sandboxes, req.language);
  const billedMs = Math.min(result.duration_ms, req.timeoutMs);
  const cost = costOfMs(price, billedMs);
  const exitCode = exitCodeOf(result);
  const units: Record<string, unknown> = {
    sandbox_run_id: id,
    language: req.language ?? "command",
    run_status: result.status,
    exit_code: exitCode,
    timed_out: result.timed_out,
    duration_ms: result.duration_ms,
    billed_ms: billedMs,
    price_micro_usd_per_second: price,
    ...(req.session ? { session_id: req.session.id } : {}),
    ...(req.backend.nodeId ? { node_id: req.backend.nodeId } : {}),
  };
  const status = abortCause() ?? "succeeded";
  const settlement = await ctx.tx.grouped(() => {
    const s = ctx.meter.settle(r, cost, { units, status });
    ctx.db
      .query(
        `INSERT INTO sandbox_runs (id, account_id, key_id, session_id, node_id, language, status, exit_code, timed_out, duration_ms, cost_micro_usd, receipt_id, usage_event_id, run_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, req.accountId, req.keyId, req.session?.id ?? null, req.backend.nodeId, req.language, result.status, exitCode, result.timed_out ? 1 : 0, result.duration_ms, s.cost, s.receipt?.id ?? null, s.usageEventId, req.runId, createdAt);
    if (req.session) {
      ctx.db
        .query("UPDATE sandbox_sessions SET exec_count = exec_count + 1, exec_cost_micro_usd = exec_cost_micro_usd + ?, last_active_at = max(last_active_at, ?) WHERE id = ?")
        .run(s.cost, ctx.clock.now(), req.session.id);
    }
    return s;
  });
  const rc = settlement.receipt;
  const view: RunView = {
    id,
    object: "sandbox.run",
    session_id: req.session?.id ?? null,
    node_id: req.backend.nodeId,
    language: req.language,
    status: result.status as RunView["status"],
    exit_code: exitCode,
    signal: result.signal,
    stdout: result.stdout,
    stderr: result.stderr,
    truncated: result.stdout_truncated || result.stderr_truncated,
    stdout_truncated: result.stdout_truncated,
    stderr_truncated: result.stderr_truncated,
    timed_out: result.timed_out,
    killed_reason: result.killed_reason,
    duration_ms: result.duration_ms,
    cost_micro_usd: settlement.cost,
    run_id: req.runId,
    receipt: rc ? { id: rc.id, receipt: rc.receipt, signature: rc.signature, signer: rc.signer } : null,
    created_at: isoTime(createdAt),
  };
  return { view, settlement, reservation: r };
}
