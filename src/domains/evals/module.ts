/**
 * Evals: test suites run against models through the meter, their runs, and drift monitors.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { MONITOR_JOB } from "./monitor-jobs.ts";
import { runDueMonitor } from "./monitors.ts";
import { evalsRoutes } from "./routes.ts";

export const evalsModule = defineModule({
  name: "evals",
  routes: (ctx) => evalsRoutes(ctx),
  jobs: (ctx) => {
    ctx.scheduler.register(MONITOR_JOB, (job, signal) => runDueMonitor(ctx, String(job.payload.monitor_id), signal));
  },
});
