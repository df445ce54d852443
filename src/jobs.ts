/**
 * The scheduler's job handlers and recurring jobs: core's own here, each area's from its
 * module (src/domains/index.ts). `svc serve` calls this before starting the scheduler.
 */
import type { Context } from "./context.ts";
import { modules } from "./domains/index.ts";
import { enabledModules } from "./module.ts";

const DAY_MS = 86_400_000;

export function registerJobs(ctx: Context): void {
  for (const m of enabledModules(modules, ctx.config)) m.jobs?.(ctx);
  ctx.scheduler.every("jobs.prune_failed", DAY_MS, () => {
    ctx.scheduler.pruneFailed(30 * DAY_MS);
  });
  // Reservations whose work died are given back; breaker buckets older than a minute go.
  ctx.scheduler.every("meter.sweep", 60_000, () => {
    ctx.meter.sweep();
    ctx.meter.pruneWindow();
  });
}
