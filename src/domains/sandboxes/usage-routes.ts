/**
 * GET /v1/usage/sandboxes and /v1/usage/sandboxes/:id (spec §4.4, session class): the path is
 * under /v1/usage, the data is this area's (usage.ts).
 */
import { Elysia, t } from "elysia";
import { bareArray } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { sandboxUsage, sandboxUsageOf } from "./usage.ts";

const tags = ["usage"];
const security = [{ session: [] }];

export function sandboxUsageRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/usage" })
    .use(guards.session(ctx))
    .get("/sandboxes", ({ principal }) => bareArray(sandboxUsage(ctx, principal.accountId)), {
      response: { 200: t.Array(M.UsageRow) },
      detail: { summary: "Sandbox sessions and one-shot runs with their cost, newest first (at most 100)", tags, security },
    })
    .get("/sandboxes/:id", ({ principal, params }) => sandboxUsageOf(ctx, principal.accountId, params.id), {
      params: M.SessionParams,
      response: { 200: M.UsageDetail },
      detail: { summary: "One session's execs and cost (or one one-shot run)", tags, security },
    });
}
