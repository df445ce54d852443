/**
 * GET /metrics: Prometheus text for the operator, mounted only with a metrics token.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { metricsConfig } from "./config.ts";
import { metricsRoutes } from "./routes.ts";

export const metricsModule = defineModule({
  name: "metrics",
  config: metricsConfig,
  routes: (ctx) => (ctx.config.metrics.token_sha256 ? [metricsRoutes(ctx)] : []),
});
