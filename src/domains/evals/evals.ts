/**
 * Evals themselves: created with their cases (checked, then sealed at rest), listed without
 * them, deleted with their runs and monitors. An eval is never edited: a changed case is a new
 * eval, so every run of an eval measured the same thing.
 *
 * - 200 evals per account (409 eval_limit_reached).
 * - The model is checked against the catalogue as the chat route checks it (404 model_not_found),
 *   and so is each judge case's judge_model.
 * - Another account's eval is "not found", like one that does not exist.
 */
import { ApiError, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { checkChatModel } from "../inference/index.ts";
import { assertCounts, checkCases, type EvalCase, sealCases } from "./cases.ts";
import { type AssertKind, MAX_EVALS_PER_ACCOUNT } from "./limits.ts";
import { type RunSummary, runSummary } from "./run-views.ts";
import { cancelMonitorJob } from "./monitor-jobs.ts";
import { assertsOf, countEvals, deleteEvalRows, type EvalRow, evalRow, evalRows, insertEval, latestRunByEval, monitorsOfEval } from "./store.ts";

export interface EvalView {
  id: string;
  name: string;
  model: string;
  threshold: number;
  case_count: number;
  asserts: Partial<Record<AssertKind, number>>;
  latest_run: RunSummary | null;
  created_at: string;
}

export interface CreateEvalInput {
  name: string;
  model: string;
  cases: EvalCase[];
  threshold?: number;
}

export const DEFAULT_THRESHOLD = 1;

export const evalLimitReached = (): ApiError =>
  new ApiError(409, "eval_limit_reached", `this account has ${MAX_EVALS_PER_ACCOUNT} evals, the most allowed; delete one first`, { limit: MAX_EVALS_PER_ACCOUNT });

const view = (row: EvalRow, latest: RunSummary | null): EvalView => ({
  id: row.id,
  name: row.name,
  model: row.model,
  threshold: row.threshold,
  case_count: row.case_count,
  asserts: assertsOf(row),
  latest_run: latest,
  created_at: new Date(row.created_at).toISOString(),
});

/** The account's eval (404 for a missing one and another account's alike). */
export function requireEval(ctx: Context, accountId: string, id: string): EvalRow {
  const row = evalRow(ctx, accountId, id);
  if (!row) throw notFound("eval");
  return row;
}

export function createEval(ctx: Context, accountId: string, input: CreateEvalInput): EvalView {
  checkChatModel(ctx, input.model, "model", accountId);
  checkCases(ctx, input.cases);
  const id = newId("eval");
  // Sealed before the transaction: the write lock is held for the insert only.
  const sealed = sealCases(ctx, accountId, id, input.cases);
  const row: EvalRow = {
    id,
    account_id: accountId,
    name: input.name,
    model: input.model,
    threshold: input.threshold ?? DEFAULT_THRESHOLD,
    case_count: input.cases.length,
    asserts: JSON.stringify(assertCounts(input.cases)),
    cases: sealed,
    created_at: ctx.clock.now(),
  };
  ctx.tx.run(() => {
    if (countEvals(ctx, accountId) >= MAX_EVALS_PER_ACCOUNT) throw evalLimitReached();
    insertEval(ctx, row);
  });
  return view(row, null);
}

/** Oldest first, all of them (at most 200), each with its newest run's summary. */
export function listEvals(ctx: Context, accountId: string): EvalView[] {
  const latest = latestRunByEval(ctx, accountId);
  return evalRows(ctx, accountId, MAX_EVALS_PER_ACCOUNT).map((row) => {
    const run = latest.get(row.id);
    return view(row, run ? runSummary(run) : null);
  });
}

/** Deletes the eval, its monitors (and their pending jobs) and its runs. */
export function deleteEval(ctx: Context, accountId: string, id: string): void {
  ctx.tx.run(() => {
    requireEval(ctx, accountId, id);
    for (const m of monitorsOfEval(ctx, id)) cancelMonitorJob(ctx, m.id, m.next_run_at);
    deleteEvalRows(ctx, accountId, id);
  });
}
