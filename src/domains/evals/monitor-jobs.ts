/**
 * A drift monitor's scheduler job: one pending job per monitor, due at its next_run_at, keyed
 * by the monitor and that time. The row's next_run_at is the truth; a job whose time no longer
 * matches (the interval was changed, the monitor disabled or deleted) finds nothing to do, and
 * is cancelled where the change is made so the queue does not keep it.
 */
import type { Context } from "../../context.ts";

export const MONITOR_JOB = "evals.monitor";

const jobKey = (monitorId: string, runAt: number): string => `${MONITOR_JOB}:${monitorId}:${runAt}`;

export function scheduleMonitorJob(ctx: Context, monitorId: string, runAt: number): void {
  // The handler records its own failures and schedules the next run: the job itself never retries.
  ctx.scheduler.schedule(MONITOR_JOB, { monitor_id: monitorId }, { runAt, uniqueKey: jobKey(monitorId, runAt), maxAttempts: 1 });
}

export function cancelMonitorJob(ctx: Context, monitorId: string, runAt: number): void {
  ctx.scheduler.cancel(jobKey(monitorId, runAt));
}
