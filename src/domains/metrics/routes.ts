/** GET /metrics: Prometheus text exposition (Bearer metrics token; unmounted without one). */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { registerCollectors } from "./collectors.ts";
import * as M from "./models.ts";

export function metricsRoutes(ctx: Context) {
  registerCollectors(ctx);
  const registry = ctx.telemetry.registry;
  return new Elysia()
    .use(guards.metrics(ctx))
    .get("/metrics", async () => new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } }), {
      detail: { summary: "Prometheus metrics (aggregate only)", tags: ["operator"], security: [{ metrics: [] }], responses: M.MetricsResponses },
    });
}
