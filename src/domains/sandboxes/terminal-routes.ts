/**
 * POST /v1/terminal/run (spec §4.1, public): keyless execution under a global daily budget and
 * a per-IP limit (terminal.ts). The route is always in the OpenAPI document; while
 * terminal.enabled is false it answers 404 with an EMPTY body — the one documented exception to
 * the error body (docs/api-conventions.md) — before anything else looks at the request
 * (rate limit, body, schema), so an off terminal tells a caller nothing.
 */
import { Elysia } from "elysia";
import { rateLimited } from "../../core/errors.ts";
import { RateLimiter } from "../../core/ratelimit.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { terminalBudget, terminalRun } from "./terminal.ts";

export const TERMINAL_PATH = "/v1/terminal/run";

export function terminalRoutes(ctx: Context) {
  const cfg = ctx.config.terminal;
  const budget = terminalBudget(ctx);
  const limiter = new RateLimiter(ctx.clock, { perMinute: cfg.per_ip_per_minute, burst: cfg.per_ip_per_minute });
  return new Elysia({ prefix: "/v1/terminal" })
    .onRequest(({ request }) => {
      if (!cfg.enabled && request.method === "POST" && new URL(request.url).pathname === TERMINAL_PATH) return new Response(null, { status: 404 });
    })
    .use(guards.public(ctx))
    .post(
      "/run",
      ({ principal, body, request }) => {
        const take = limiter.take(principal.client);
        if (!take.ok) throw rateLimited(take.retryAfterSecs, "too many terminal runs from this address; slow down");
        return terminalRun(ctx, budget, body, request.signal);
      },
      {
        body: M.TerminalBody,
        response: { 200: M.TerminalResult, ...errors(404, 503) },
        detail: {
          summary:
            "Keyless code execution (per-IP limited, global daily budget: 503 terminal_budget_exhausted when spent); 404 with an EMPTY body while terminal.enabled is false",
          tags: ["sandboxes"],
        },
      },
    );
}
