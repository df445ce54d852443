/**
 * The evals area's rows and the SQL that reads and writes them (evals, eval_runs,
 * eval_monitors: migrations/0024_evals.sql). Services call these inside their own transactions;
 * every read is scoped to an account, so another account's id finds nothing.
 */
import type { Context } from "../../context.ts";
import type { AssertKind } from "./limits.ts";
import { RUNS_KEPT_PER_EVAL } from "./limits.ts";

export interface EvalRow {
  id: string;
  account_id: string;
  name: string;
  model: string;
  threshold: number;
  case_count: number;
  asserts: string;
  cases: string;
  created_at: number;
}

export interface RunRow {
  seq: number;
  id: string;
  account_id: string;
  eval_id: string;
  model: string;
  source: "manual" | "monitor";
  monitor_id: string | null;
  status: "completed" | "failed";
  error_type: string | null;
  error_message: string | null;
  passed: number | null;
  total: number;
  pass_rate: number | null;
  threshold: number;
  passed_threshold: number;
  regression: number;
  previous_run_id: string | null;
  previous_pass_rate: number | null;
  cost_micro_usd: number;
  receipt_ids: string;
  results: string;
  created_at: number;
  completed_at: number;
}

export interface MonitorRow {
  id: string;
  account_id: string;
  eval_id: string;
  model: string;
  interval_s: number;
  drop_threshold: number;
  enabled: number;
  next_run_at: number;
  last_run_at: number | null;
  last_run_id: string | null;
  last_error_type: string | null;
  last_error_message: string | null;
  last_drift_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A case's stored result: content-free (no output text, no expected text). */
export interface CaseResult {
  index: number;
  passed: boolean;
  reason: string;
  output_sha256: string;
  latency_ms: number;
  cost_micro_usd: number;
  receipt_id: string | null;
  judge_receipt_id: string | null;
}

export const assertsOf = (row: EvalRow): Partial<Record<AssertKind, number>> => JSON.parse(row.asserts) as Partial<Record<AssertKind, number>>;

// evals

export function evalRow(ctx: Context, accountId: string, id: string): EvalRow | null {
  return ctx.db.query<EvalRow, [string, string]>("SELECT * FROM evals WHERE id = ? AND account_id = ?").get(id, accountId);
}

export const countEvals = (ctx: Context, accountId: string): number =>
  ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM evals WHERE account_id = ?").get(accountId)!.n;

export function insertEval(ctx: Context, row: EvalRow): void {
  ctx.db
    .query("INSERT INTO evals (id, account_id, name, model, threshold, case_count, asserts, cases, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
    .run(row.id, row.account_id, row.name, row.model, row.threshold, row.case_count, row.asserts, row.cases, row.created_at);
}

/** Oldest first, as created. */
export const evalRows = (ctx: Context, accountId: string, limit: number): EvalRow[] =>
  ctx.db.query<EvalRow, [string, number]>("SELECT * FROM evals WHERE account_id = ? ORDER BY created_at, id LIMIT ?").all(accountId, limit);

/** The eval with its runs and monitors; false when the account has no such eval. */
export function deleteEvalRows(ctx: Context, accountId: string, id: string): boolean {
  const gone = ctx.db.query("DELETE FROM evals WHERE id = ? AND account_id = ?").run(id, accountId).changes > 0;
  if (!gone) return false;
  ctx.db.query("DELETE FROM eval_runs WHERE eval_id = ?").run(id);
  ctx.db.query("DELETE FROM eval_monitors WHERE eval_id = ?").run(id);
  return true;
}

// runs

export const runRows = (ctx: Context, accountId: string, evalId: string, limit: number): RunRow[] =>
  ctx.db.query<RunRow, [string, string, number]>("SELECT * FROM eval_runs WHERE eval_id = ? AND account_id = ? ORDER BY seq DESC LIMIT ?").all(evalId, accountId, limit);

/** The newest run of each of the account's evals (any model, any status), by eval id. */
export function latestRunByEval(ctx: Context, accountId: string): Map<string, RunRow> {
  const rows = ctx.db
    .query<RunRow, [string]>(
      `SELECT r.* FROM eval_runs r
       JOIN (SELECT max(seq) AS seq FROM eval_runs WHERE account_id = ?1 GROUP BY eval_id) newest ON newest.seq = r.seq`,
    )
    .all(accountId);
  return new Map(rows.map((r) => [r.eval_id, r]));
}

/** The newest completed run of an eval with a model: the baseline the next one is compared with. */
export const previousCompleted = (ctx: Context, evalId: string, model: string): RunRow | null =>
  ctx.db.query<RunRow, [string, string]>("SELECT * FROM eval_runs WHERE eval_id = ? AND model = ? AND status = 'completed' ORDER BY seq DESC LIMIT 1").get(evalId, model);

/** The newest completed run of each (eval, model) pair of the account, newest first, with the eval's name. */
export const latestCompletedPairs = (ctx: Context, accountId: string): (RunRow & { eval_name: string })[] =>
  ctx.db
    .query<RunRow & { eval_name: string }, [string]>(
      `SELECT r.*, e.name AS eval_name FROM eval_runs r
       JOIN (SELECT max(seq) AS seq FROM eval_runs WHERE account_id = ?1 AND status = 'completed' GROUP BY eval_id, model) newest ON newest.seq = r.seq
       JOIN evals e ON e.id = r.eval_id
       ORDER BY r.seq DESC`,
    )
    .all(accountId);

export function insertRun(ctx: Context, row: Omit<RunRow, "seq">): void {
  ctx.db
    .query(
      `INSERT INTO eval_runs (id, account_id, eval_id, model, source, monitor_id, status, error_type, error_message, passed, total, pass_rate, threshold,
         passed_threshold, regression, previous_run_id, previous_pass_rate, cost_micro_usd, receipt_ids, results, created_at, completed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.id, row.account_id, row.eval_id, row.model, row.source, row.monitor_id, row.status, row.error_type, row.error_message, row.passed, row.total, row.pass_rate, row.threshold,
      row.passed_threshold, row.regression, row.previous_run_id, row.previous_pass_rate, row.cost_micro_usd, row.receipt_ids, row.results, row.created_at, row.completed_at,
    );
  // Only the newest runs of an eval are kept; the money they spent stays in usage and receipts.
  ctx.db
    .query("DELETE FROM eval_runs WHERE eval_id = ?1 AND seq NOT IN (SELECT seq FROM eval_runs WHERE eval_id = ?1 ORDER BY seq DESC LIMIT ?2)")
    .run(row.eval_id, RUNS_KEPT_PER_EVAL);
}

// monitors

export function monitorRow(ctx: Context, accountId: string, id: string): MonitorRow | null {
  return ctx.db.query<MonitorRow, [string, string]>("SELECT * FROM eval_monitors WHERE id = ? AND account_id = ?").get(id, accountId);
}

/** For the scheduler's job, which knows the monitor but not (yet) its account. */
export const monitorById = (ctx: Context, id: string): MonitorRow | null => ctx.db.query<MonitorRow, [string]>("SELECT * FROM eval_monitors WHERE id = ?").get(id);

export const countMonitors = (ctx: Context, accountId: string): number =>
  ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM eval_monitors WHERE account_id = ?").get(accountId)!.n;

export const monitorRows = (ctx: Context, accountId: string): MonitorRow[] =>
  ctx.db.query<MonitorRow, [string]>("SELECT * FROM eval_monitors WHERE account_id = ? ORDER BY created_at, id").all(accountId);

export const monitorsOfEval = (ctx: Context, evalId: string): MonitorRow[] =>
  ctx.db.query<MonitorRow, [string]>("SELECT * FROM eval_monitors WHERE eval_id = ?").all(evalId);

export function insertMonitor(ctx: Context, row: MonitorRow): void {
  ctx.db
    .query(
      `INSERT INTO eval_monitors (id, account_id, eval_id, model, interval_s, drop_threshold, enabled, next_run_at, last_run_at, last_run_id,
         last_error_type, last_error_message, last_drift_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.id, row.account_id, row.eval_id, row.model, row.interval_s, row.drop_threshold, row.enabled, row.next_run_at, row.last_run_at, row.last_run_id,
      row.last_error_type, row.last_error_message, row.last_drift_at, row.created_at, row.updated_at,
    );
}

type MonitorChange = Partial<Pick<MonitorRow, "interval_s" | "drop_threshold" | "enabled" | "next_run_at" | "last_run_at" | "last_run_id" | "last_error_type" | "last_error_message" | "last_drift_at">>;

export function updateMonitor(ctx: Context, id: string, change: MonitorChange, now: number): void {
  const fields = Object.keys(change) as (keyof MonitorChange)[];
  const sets = [...fields.map((f) => `${f} = ?`), "updated_at = ?"].join(", ");
  ctx.db.query(`UPDATE eval_monitors SET ${sets} WHERE id = ?`).run(...fields.map((f) => change[f] ?? null), now, id);
}

export const deleteMonitorRow = (ctx: Context, accountId: string, id: string): boolean =>
  ctx.db.query("DELETE FROM eval_monitors WHERE id = ? AND account_id = ?").run(id, accountId).changes > 0;
