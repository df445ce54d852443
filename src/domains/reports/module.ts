/**
 * POST /v1/reports/sla and the per-route request statistics it is computed from.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { registerRequestStatsJobs, requestStats } from "./request-stats.ts";
import { reportRoutes } from "./routes.ts";

export const reportsModule = defineModule({
  name: "reports",
  routes: (ctx) => [reportRoutes(ctx)],
  // Request metrics for the SLA report: merged from memory into request_stats every minute, pruned after the retention.
  jobs: registerRequestStatsJobs,
  serve: {
    // The last minute of request metrics is still in memory; the SLA report should not lose it.
    stop(ctx) {
      requestStats(ctx).flush();
    },
  },
});
