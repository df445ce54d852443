/**
 * Running an eval: every case through the metered chat pipeline on the account's credit, graded,
 * and stored as one content-free run. The rules:
 *
 * - Each model call (a case's, and a judge case's judge call) is its own metered call with its
 *   own signed receipt, billed as it settles. A session starts the work, so the caller is the
 *   account with no key: its credit, no key caps.
 * - Cases run at most RUN_CONCURRENCY at a time. The first call that fails (402 insufficient
 *   credit, model not found, an upstream error, the run stopped) fails the run as a whole: no
 *   further case starts, the calls in flight finish, and the run is stored as failed with what it
 *   had spent — each settled call stays billed, since each is its own receipt. The error then
 *   answers the request, with the run's id and spend added.
 * - A completed run compares its pass rate with the newest completed run of the same eval and
 *   model stored before it: lower is a regression. That run is also a drift monitor's baseline.
 * - Stored: verdicts, fixed reason phrases, sha256 of outputs, costs and receipt ids; never an
 *   output's text. The outputs are handed back to the caller once (POST …/run) and forgotten.
 */
import { ApiError, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { type Caller, type ChatCallRequest, checkChatModel, completeChat } from "../inference/index.ts";
import { type EvalCase, openCases } from "./cases.ts";
import { requireEval } from "./evals.ts";
import { checkOutput, judgeOutput, type Verdict } from "./grade.ts";
import { ERROR_MESSAGE_MAX, RATE_EPSILON, RUN_CONCURRENCY } from "./limits.ts";
import { type RunView, runView } from "./run-views.ts";
import { type CaseResult, type EvalRow, evalRow, insertRun, previousCompleted, type RunRow } from "./store.ts";

export interface RunOptions {
  /** Another chat model than the eval's own (the same eval compared across models). */
  model?: string;
  source?: RunRow["source"];
  monitorId?: string | null;
  signal?: AbortSignal;
  /**
   * Runs in the transaction that stores the run, after it is stored: a monitor's drift check and
   * its event, so the event exists exactly when the run does.
   */
  onStored?: (run: RunRow, previous: RunRow | null) => void;
}

export interface RunOutcome {
  run: RunView;
  /** Each case's output text, by case index: for the caller's eyes once, never stored. */
  outputs: string[];
}

/** What the calls of a run have spent so far, whatever becomes of the run. */
interface Spend {
  cost: number;
  receipts: string[];
}

function messagesOf(c: EvalCase): ChatCallRequest["messages"] {
  return c.system === undefined ? [{ role: "user", content: c.input }] : [{ role: "system", content: c.system }, { role: "user", content: c.input }];
}

/** How a run's cases are called: the judge of a judge case without its own, the run their receipts chain into. */
export interface CaseSetOptions {
  judgeModel: string;
  runId?: string;
  signal?: AbortSignal;
}

async function runCase(ctx: Context, caller: Caller, how: CaseSetOptions, c: EvalCase, index: number, model: string, spend: Spend): Promise<{ result: CaseResult; output: string }> {
  const { runId, signal } = how;
  const started = performance.now();
  const call = await completeChat(ctx, { caller, model, messages: messagesOf(c), exactModel: true, signal, runId });
  const latency = Math.max(0, Math.round(performance.now() - started));
  spend.cost += call.settlement.cost;
  if (call.settlement.receipt) spend.receipts.push(call.settlement.receipt.id);
  let cost = call.settlement.cost;
  let verdict: Verdict;
  let judgeReceipt: string | null = null;
  if (c.assert === "judge") {
    const judged = await judgeOutput(ctx, caller, c, call.text, c.judge_model ?? how.judgeModel, signal, runId);
    spend.cost += judged.call.settlement.cost;
    if (judged.call.settlement.receipt) spend.receipts.push(judged.call.settlement.receipt.id);
    cost += judged.call.settlement.cost;
    judgeReceipt = judged.call.settlement.receipt?.id ?? null;
    verdict = judged.verdict;
  } else {
    verdict = checkOutput(c, call.text);
  }
  return {
    output: call.text,
    result: {
      index,
      passed: verdict.passed,
      reason: verdict.reason,
      output_sha256: sha256Hex(call.text),
      latency_ms: latency,
      cost_micro_usd: cost,
      receipt_id: call.settlement.receipt?.id ?? null,
      judge_receipt_id: judgeReceipt,
    },
  };
}

/** Runs every case, RUN_CONCURRENCY at a time; stops starting cases at the first failure. */
async function runCases(ctx: Context, caller: Caller, how: CaseSetOptions, cases: EvalCase[], model: string, spend: Spend) {
  const { signal } = how;
  const results: CaseResult[] = [];
  const outputs: string[] = [];
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (!failure && next < cases.length) {
      if (signal?.aborted) {
        failure = { error: new ApiError(503, "run_stopped", "the run was stopped (the client went away, or svc is shutting down) before every case had run") };
        break;
      }
      const index = next++;
      try {
        const done = await runCase(ctx, caller, how, cases[index]!, index, model, spend);
        results[index] = done.result;
        outputs[index] = done.output;
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(RUN_CONCURRENCY, cases.length) }, worker));
  return { results: results.filter(Boolean), outputs, failure: failure as { error: unknown } | null };
}

const errorOf = (error: unknown): { type: string; message: string } =>
  error instanceof ApiError ? { type: error.type, message: error.message.slice(0, ERROR_MESSAGE_MAX) } : { type: "internal_error", message: "the run stopped on an internal error" };

/** Stores a run (completed or failed) with its comparison to the previous completed run, in one transaction. */
function storeRun(ctx: Context, row: EvalRow, run: Omit<RunRow, "seq" | "regression" | "previous_run_id" | "previous_pass_rate">, onStored: RunOptions["onStored"]): RunRow {
  return ctx.tx.run(() => {
    // Deleted while it ran: its calls stay billed (their receipts and usage events), the run has nowhere to go.
    if (!evalRow(ctx, row.account_id, row.id)) throw notFound("eval");
    const previous = run.status === "completed" ? previousCompleted(ctx, row.id, run.model) : null;
    const stored: Omit<RunRow, "seq"> = {
      ...run,
      previous_run_id: previous?.id ?? null,
      previous_pass_rate: previous?.pass_rate ?? null,
      regression: previous?.pass_rate != null && run.pass_rate !== null && run.pass_rate < previous.pass_rate - RATE_EPSILON ? 1 : 0,
    };
    insertRun(ctx, stored);
    const full = { ...stored, seq: 0 };
    onStored?.(full, previous);
    return full;
  });
}

/**
 * Runs an eval against its model (or options.model) and stores the run. Throws the failing
 * call's error (with eval_run_id and spent_micro_usd added) when the run fails; the failed run is
 * stored first.
 */
export async function runEval(ctx: Context, accountId: string, evalId: string, options: RunOptions = {}): Promise<RunOutcome> {
  const row = requireEval(ctx, accountId, evalId);
  const model = options.model ?? row.model;
  if (options.model !== undefined) checkChatModel(ctx, options.model, "model");
  const cases = openCases(ctx, accountId, row.id, row.cases);
  const caller: Caller = { accountId, keyId: null };
  const id = newId("erun");
  const startedAt = ctx.clock.now();
  const spend: Spend = { cost: 0, receipts: [] };
  // The eval's own model judges by default, not an override: runs compared across models keep one judge.
  const { results, outputs, failure } = await runCases(ctx, caller, { judgeModel: row.model, signal: options.signal }, cases, model, spend);
  const base = {
    id,
    account_id: accountId,
    eval_id: row.id,
    model,
    source: options.source ?? "manual",
    monitor_id: options.monitorId ?? null,
    total: cases.length,
    threshold: row.threshold,
    cost_micro_usd: spend.cost,
    receipt_ids: JSON.stringify(spend.receipts),
    created_at: startedAt,
    completed_at: ctx.clock.now(),
  } as const;
  if (failure) {
    const error = errorOf(failure.error);
    storeRun(
      ctx,
      row,
      {
        ...base,
        status: "failed",
        error_type: error.type,
        error_message: error.message,
        passed: null,
        pass_rate: null,
        passed_threshold: 0,
        results: JSON.stringify(results.sort((a, b) => a.index - b.index)),
      },
      options.onStored,
    );
    const cause = failure.error;
    if (!(cause instanceof ApiError)) throw cause;
    throw new ApiError(cause.status, cause.type, cause.message, { ...cause.extra, eval_run_id: id, spent_micro_usd: spend.cost }, cause.headers);
  }
  const passed = results.filter((r) => r.passed).length;
  const passRate = passed / cases.length;
  const stored = storeRun(
    ctx,
    row,
    {
      ...base,
      status: "completed",
      error_type: null,
      error_message: null,
      passed,
      pass_rate: passRate,
      passed_threshold: passRate >= row.threshold - RATE_EPSILON ? 1 : 0,
      results: JSON.stringify(results),
    },
    options.onStored,
  );
  return { run: runView(stored), outputs };
}

export interface CaseSetOutcome {
  /** By case index; on a failure, only the cases that finished. */
  results: CaseResult[];
  /** Each case's output text, by case index: for the caller's eyes once. */
  outputs: string[];
  /** The first failing call's error, as a failed eval run stores it; null when every case ran. */
  error: { type: string; message: string } | null;
  /** That error itself, for a caller that answers with it. */
  cause: unknown;
  cost_micro_usd: number;
  receipt_ids: string[];
}

/**
 * Cases that belong to no eval (the arena's suites), run as runEval runs an eval's: the same
 * metered calls, concurrency, grading and first-failure rule. Nothing is stored and nothing is
 * thrown: the caller keeps its own record of the outcome.
 */
export async function runCaseSet(ctx: Context, caller: Caller, cases: EvalCase[], model: string, options: CaseSetOptions): Promise<CaseSetOutcome> {
  const spend: Spend = { cost: 0, receipts: [] };
  const { results, outputs, failure } = await runCases(ctx, caller, options, cases, model, spend);
  return {
    results: results.sort((a, b) => a.index - b.index),
    outputs,
    error: failure ? errorOf(failure.error) : null,
    cause: failure?.error ?? null,
    cost_micro_usd: spend.cost,
    receipt_ids: spend.receipts,
  };
}
