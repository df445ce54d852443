/**
 * What a stored run looks like to its owner (GET /v1/evals/:id/runs, and POST …/run before its
 * outputs are added) and in brief (an eval's latest_run).
 */
import type { CaseResult, RunRow } from "./store.ts";

export interface RunError {
  type: string;
  message: string;
}

export interface RunSummary {
  id: string;
  model: string;
  status: "completed" | "failed";
  passed: number | null;
  total: number;
  pass_rate: number | null;
  passed_threshold: boolean;
  regression: boolean;
  created_at: string;
}

export interface RunView extends RunSummary {
  eval_id: string;
  source: "manual" | "monitor";
  monitor_id: string | null;
  error: RunError | null;
  threshold: number;
  previous_run_id: string | null;
  previous_pass_rate: number | null;
  cost_micro_usd: number;
  receipt_ids: string[];
  results: CaseResult[];
  completed_at: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export const runSummary = (r: RunRow): RunSummary => ({
  id: r.id,
  model: r.model,
  status: r.status,
  passed: r.passed,
  total: r.total,
  pass_rate: r.pass_rate,
  passed_threshold: r.passed_threshold === 1,
  regression: r.regression === 1,
  created_at: iso(r.created_at),
});

export const runView = (r: RunRow): RunView => ({
  ...runSummary(r),
  eval_id: r.eval_id,
  source: r.source,
  monitor_id: r.monitor_id,
  error: r.error_type === null ? null : { type: r.error_type, message: r.error_message ?? "" },
  threshold: r.threshold,
  previous_run_id: r.previous_run_id,
  previous_pass_rate: r.previous_pass_rate,
  cost_micro_usd: r.cost_micro_usd,
  receipt_ids: JSON.parse(r.receipt_ids) as string[],
  results: JSON.parse(r.results) as CaseResult[],
  completed_at: iso(r.completed_at),
});
