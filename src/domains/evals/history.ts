/**
 * Reading runs back: an eval's runs for its owner, and the latest completed result of each
 * (eval, model) pair for other areas (autopilot compares models with it).
 */
import { parseLimit } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { requireEval } from "./evals.ts";
import { RUNS_LIMIT } from "./limits.ts";
import { type RunView, runView } from "./run-views.ts";
import { latestCompletedPairs, runRows } from "./store.ts";

export interface EvalRunSummary {
  eval_id: string;
  eval_name: string;
  model: string;
  run_id: string;
  pass_rate: number;
  passed: number;
  total: number;
  threshold: number;
  passed_threshold: boolean;
  regression: boolean;
  /** When the run started, ms since the epoch. */
  created_at: number;
}

/** An eval's runs, newest first (404 for another account's eval); `limit` as sent (?limit=, 1–200, default 50). */
export function listRuns(ctx: Context, accountId: string, evalId: string, limit?: string): RunView[] {
  requireEval(ctx, accountId, evalId);
  return runRows(ctx, accountId, evalId, parseLimit(limit, RUNS_LIMIT, "query.limit")).map(runView);
}

/** The latest completed run of each (eval, model) pair of the account, newest first. */
export function latestEvalRuns(ctx: Context, accountId: string): EvalRunSummary[] {
  return latestCompletedPairs(ctx, accountId).map((r) => ({
    eval_id: r.eval_id,
    eval_name: r.eval_name,
    model: r.model,
    run_id: r.id,
    pass_rate: r.pass_rate ?? 0,
    passed: r.passed ?? 0,
    total: r.total,
    threshold: r.threshold,
    passed_threshold: r.passed_threshold === 1,
    regression: r.regression === 1,
    created_at: r.created_at,
  }));
}
