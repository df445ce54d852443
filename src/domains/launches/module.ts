/**
 * Launches: backed tokens watched against their custodian, with mint authorizations, redemptions and a public record (/v1/launches/*; docs/launches.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { launchesConfig } from "./config.ts";
import { registerLaunchJobs } from "./jobs.ts";
import { publicLaunchRoutes } from "./public-routes.ts";
import { launchRoutes } from "./routes.ts";

export const launchesModule = defineModule({
  name: "launches",
  config: launchesConfig,
  routes: (ctx) => [publicLaunchRoutes(ctx), launchRoutes(ctx)],
  jobs: registerLaunchJobs,
});
