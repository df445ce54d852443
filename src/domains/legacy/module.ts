/**
 * Legacy plans: a dead-man's switch releasing sealed content to beneficiaries when check-ins stop (/v1/legacy/*; docs/legacy.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { legacyConfig } from "./config.ts";
import { SWEEP_JOB, sweepPlans } from "./lifecycle.ts";
import { SWEEP_EVERY_MS } from "./limits.ts";
import { legacyPublicRoutes, legacyRoutes } from "./routes.ts";

export const legacyModule = defineModule({
  name: "legacy",
  config: legacyConfig,
  routes: (ctx) => [legacyRoutes(ctx), legacyPublicRoutes(ctx)],
  jobs(ctx) {
    // Deadlines, warnings and releases: every plan whose next timed check has come. Bounded per run.
    ctx.scheduler.every(SWEEP_JOB, SWEEP_EVERY_MS, () => void sweepPlans(ctx));
  },
});
