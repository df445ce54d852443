/**
 * Drift monitors: an eval run on a schedule against one model, watching its pass rate. The rules:
 *
 * - At most 50 per account (409 monitor_limit_reached); interval_s from 3,600 (spec §8: hourly
 *   floor) to 30 days; drop_threshold in (0, 1]; the model defaults to the eval's.
 * - The first run is due one interval after creation. When a run is due (next_run_at ≤ now on
 *   the context's clock), the monitor is claimed — next_run_at moves one interval on and the job
 *   for that time is queued, in one transaction — before the run starts, so a job the scheduler
 *   hands out twice (a lease that ran out) runs the eval once, and the chain of jobs never breaks.
 * - The run is POST …/run's own (runs.ts): metered on the account's credit, stored with
 *   source "monitor". Its baseline is the newest completed run of the same eval and model stored
 *   before it, whoever started that one. When the pass rate fell from the baseline's by
 *   drop_threshold or more, eval_drift_detected is emitted in the transaction that stores the run.
 * - A run that fails (402, model gone, upstream error) records last_error on the monitor; the
 *   next interval tries again. A completed run clears it.
 * - PATCH interval_s or enabled re-times the next run: one interval after the last run (or the
 *   creation), or now if that is already past. Disabling cancels the pending job.
 */
import { ApiError, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { checkChatModel } from "../inference/index.ts";
import { requireEval } from "./evals.ts";
import { ERROR_MESSAGE_MAX, MAX_MONITORS_PER_ACCOUNT, RATE_EPSILON } from "./limits.ts";
import { cancelMonitorJob, scheduleMonitorJob } from "./monitor-jobs.ts";
import type { RunError } from "./run-views.ts";
import { runEval } from "./runs.ts";
import { countMonitors, deleteMonitorRow, evalRow, insertMonitor, monitorById, type MonitorRow, monitorRow, monitorRows, type RunRow, updateMonitor } from "./store.ts";

export const DRIFT_EVENT = "eval_drift_detected";

export interface MonitorView {
  id: string;
  eval_id: string;
  model: string;
  interval_s: number;
  drop_threshold: number;
  enabled: boolean;
  next_run_at: string;
  last_run_at: string | null;
  last_run_id: string | null;
  last_error: RunError | null;
  last_drift_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CreateMonitorInput {
  eval_id: string;
  interval_s: number;
  drop_threshold: number;
  model?: string;
}

export interface MonitorChange {
  interval_s?: number;
  drop_threshold?: number;
  enabled?: boolean;
}

/** eval_drift_detected's payload (docs/evals.md): ids, rates and thresholds; never case content. */
export interface DriftPayload {
  [field: string]: unknown;
  monitor_id: string;
  eval_id: string;
  eval_name: string;
  model: string;
  run_id: string;
  baseline_run_id: string;
  previous_pass_rate: number;
  pass_rate: number;
  drop: number;
  drop_threshold: number;
  passed: number;
  total: number;
  detected_at: string;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

const view = (m: MonitorRow): MonitorView => ({
  id: m.id,
  eval_id: m.eval_id,
  model: m.model,
  interval_s: m.interval_s,
  drop_threshold: m.drop_threshold,
  enabled: m.enabled === 1,
  next_run_at: iso(m.next_run_at)!,
  last_run_at: iso(m.last_run_at),
  last_run_id: m.last_run_id,
  last_error: m.last_error_type === null ? null : { type: m.last_error_type, message: m.last_error_message ?? "" },
  last_drift_at: iso(m.last_drift_at),
  created_at: iso(m.created_at)!,
  updated_at: iso(m.updated_at)!,
});

export const monitorLimitReached = (): ApiError =>
  new ApiError(409, "monitor_limit_reached", `this account has ${MAX_MONITORS_PER_ACCOUNT} eval monitors, the most allowed; delete one first`, { limit: MAX_MONITORS_PER_ACCOUNT });

function requireMonitor(ctx: Context, accountId: string, id: string): MonitorRow {
  const row = monitorRow(ctx, accountId, id);
  if (!row) throw notFound("eval monitor");
  return row;
}

export function createMonitor(ctx: Context, accountId: string, input: CreateMonitorInput): MonitorView {
  const evalRecord = requireEval(ctx, accountId, input.eval_id);
  if (input.model !== undefined) checkChatModel(ctx, input.model, "model");
  const now = ctx.clock.now();
  const row: MonitorRow = {
    id: newId("emon"),
    account_id: accountId,
    eval_id: evalRecord.id,
    model: input.model ?? evalRecord.model,
    interval_s: input.interval_s,
    drop_threshold: input.drop_threshold,
    enabled: 1,
    next_run_at: now + input.interval_s * 1000,
    last_run_at: null,
    last_run_id: null,
    last_error_type: null,
    last_error_message: null,
    last_drift_at: null,
    created_at: now,
    updated_at: now,
  };
  ctx.tx.run(() => {
    if (countMonitors(ctx, accountId) >= MAX_MONITORS_PER_ACCOUNT) throw monitorLimitReached();
    // The eval may have been deleted since it was read: a monitor of nothing is refused alike.
    if (!evalRow(ctx, accountId, evalRecord.id)) throw notFound("eval");
    insertMonitor(ctx, row);
    scheduleMonitorJob(ctx, row.id, row.next_run_at);
  });
  return view(row);
}

/** Oldest first, all of them (at most 50). */
export const listMonitors = (ctx: Context, accountId: string): MonitorView[] => monitorRows(ctx, accountId).map(view);

export function changeMonitor(ctx: Context, accountId: string, id: string, change: MonitorChange): MonitorView {
  return ctx.tx.run(() => {
    const row = requireMonitor(ctx, accountId, id);
    const now = ctx.clock.now();
    const interval = change.interval_s ?? row.interval_s;
    const enabled = change.enabled ?? row.enabled === 1;
    let next = row.next_run_at;
    if (change.interval_s !== undefined || change.enabled !== undefined) {
      cancelMonitorJob(ctx, row.id, row.next_run_at);
      if (enabled) {
        next = Math.max(now, (row.last_run_at ?? row.created_at) + interval * 1000);
        scheduleMonitorJob(ctx, row.id, next);
      }
    }
    updateMonitor(ctx, row.id, { interval_s: interval, drop_threshold: change.drop_threshold ?? row.drop_threshold, enabled: enabled ? 1 : 0, next_run_at: next }, now);
    return view(monitorRow(ctx, accountId, id)!);
  });
}

export function deleteMonitor(ctx: Context, accountId: string, id: string): void {
  ctx.tx.run(() => {
    const row = requireMonitor(ctx, accountId, id);
    cancelMonitorJob(ctx, row.id, row.next_run_at);
    deleteMonitorRow(ctx, accountId, id);
  });
}

/** Moves a due monitor's next run one interval on (and queues its job); null when it is not due. */
function claim(ctx: Context, monitorId: string): MonitorRow | null {
  return ctx.tx.run(() => {
    const now = ctx.clock.now();
    const m = monitorById(ctx, monitorId);
    if (!m || m.enabled !== 1 || m.next_run_at > now) return null;
    const next = now + m.interval_s * 1000;
    updateMonitor(ctx, m.id, { next_run_at: next, last_run_at: now }, now);
    scheduleMonitorJob(ctx, m.id, next);
    return m;
  });
}

/** In the transaction that stores a monitor's run: its outcome on the monitor, and the drift event. */
function recordOutcome(ctx: Context, monitorId: string, run: RunRow, previous: RunRow | null): void {
  const m = monitorById(ctx, monitorId);
  if (!m) return; // deleted while its run was in flight
  const now = ctx.clock.now();
  if (run.status === "failed") {
    updateMonitor(ctx, m.id, { last_run_id: run.id, last_error_type: run.error_type, last_error_message: run.error_message }, now);
    return;
  }
  let driftAt = m.last_drift_at;
  if (previous?.pass_rate != null && run.pass_rate !== null) {
    const drop = previous.pass_rate - run.pass_rate;
    if (drop >= m.drop_threshold - RATE_EPSILON) {
      const payload: DriftPayload = {
        monitor_id: m.id,
        eval_id: m.eval_id,
        eval_name: evalRow(ctx, m.account_id, m.eval_id)?.name ?? "",
        model: run.model,
        run_id: run.id,
        baseline_run_id: previous.id,
        previous_pass_rate: previous.pass_rate,
        pass_rate: run.pass_rate,
        drop: Math.round(drop * 1e6) / 1e6,
        drop_threshold: m.drop_threshold,
        passed: run.passed ?? 0,
        total: run.total,
        detected_at: new Date(now).toISOString(),
      };
      ctx.outbox.emit(DRIFT_EVENT, m.account_id, payload);
      driftAt = now;
    }
  }
  updateMonitor(ctx, m.id, { last_run_id: run.id, last_error_type: null, last_error_message: null, last_drift_at: driftAt }, now);
}

/** The scheduler's job: runs a due monitor's eval once. Failures are the monitor's to show, never the job's to retry. */
export async function runDueMonitor(ctx: Context, monitorId: string, signal?: AbortSignal): Promise<void> {
  const m = claim(ctx, monitorId);
  if (!m) return;
  try {
    await runEval(ctx, m.account_id, m.eval_id, { model: m.model, source: "monitor", monitorId: m.id, signal, onStored: (run, previous) => recordOutcome(ctx, m.id, run, previous) });
  } catch (err) {
    // A failed run has recorded itself; this also covers failures before any run was stored (the model left the catalogue).
    const error = err instanceof ApiError ? { type: err.type, message: err.message.slice(0, ERROR_MESSAGE_MAX) } : { type: "internal_error", message: "the run stopped on an internal error" };
    ctx.tx.run(() => {
      if (monitorById(ctx, m.id)) updateMonitor(ctx, m.id, { last_error_type: error.type, last_error_message: error.message }, ctx.clock.now());
    });
    if (!(err instanceof ApiError)) ctx.log.error("eval monitor run failed", { monitor_id: m.id, error: String(err) });
  }
}
