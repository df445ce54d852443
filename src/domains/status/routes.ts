/** GET /v1/status: recorded health and uptime (public). */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { statusReport } from "./health.ts";
import * as M from "./models.ts";

export function statusRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1" })
    .use(guards.public(ctx))
    .get("/status", () => statusReport(ctx), { response: { 200: M.Status }, detail: { summary: "Recorded health and uptime", tags: ["status"] } });
}
