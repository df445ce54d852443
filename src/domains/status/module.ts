/**
 * GET /v1/status: recorded health samples, uptime and the replication posture.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { statusConfig } from "./config.ts";
import { registerHealthJobs } from "./health.ts";
import { statusRoutes } from "./routes.ts";

export const statusModule = defineModule({ name: "status", config: statusConfig, routes: (ctx) => [statusRoutes(ctx)], jobs: registerHealthJobs });
