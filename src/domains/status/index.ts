/** GET /v1/status: recorded health samples, uptime and the replication posture. */
import { defineModule } from "../../module.ts";
import { statusConfig } from "./config.ts";
import { registerHealthJobs } from "./health.ts";
import { statusRoutes } from "./routes.ts";

export const statusModule = defineModule({ name: "status", config: statusConfig, routes: (ctx) => [statusRoutes(ctx)], jobs: registerHealthJobs });

export { uptime, type UptimeWindow } from "./health.ts";
