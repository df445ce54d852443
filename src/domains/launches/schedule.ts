/**
 * Scheduled checks: a chain of durable jobs per active launch, one due every interval_s; each
 * run checks the launch, charges the monthly fee when one is due, and queues the next (the key
 * names the launch and the due time, so a crash between run and delete never doubles the
 * chain). A retired launch's job ends without queuing another.
 */
import type { Context } from "../../context.ts";

export const CHECK_JOB = "launches.check";

export function scheduleCheck(ctx: Context, launchId: string, delayMs: number): void {
  const runAt = ctx.clock.now() + delayMs;
  ctx.scheduler.schedule(CHECK_JOB, { launch_id: launchId }, { runAt, uniqueKey: `${CHECK_JOB}:${launchId}:${runAt}`, maxAttempts: 3 });
}
