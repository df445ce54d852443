/**
 * POST /v1/assistant (public, spec §4.1): keyless, per-IP limited, under a global daily budget;
 * persists nothing and mints no receipt (assistant.ts says why and how). Mounted only when
 * config `assistant.model` is set — otherwise the route does not exist (404), as every
 * unconfigured group.
 */
import { Elysia } from "elysia";
import { rateLimited } from "../../core/errors.ts";
import { errors } from "../../core/schemas.ts";
import { RateLimiter } from "../../core/ratelimit.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { answer, assistantBudget } from "./assistant.ts";
import * as M from "./models.ts";

export function assistantRoutes(ctx: Context) {
  const cfg = ctx.config.assistant;
  const budget = assistantBudget(ctx);
  // Its own bucket per client address, beside the public routes' limit: a model call costs the operator money.
  const limiter = new RateLimiter(ctx.clock, { perMinute: cfg.per_ip_per_minute, burst: cfg.per_ip_per_minute });
  return new Elysia({ prefix: "/v1/assistant" })
    .use(guards.public(ctx))
    .post(
      "",
      ({ principal, body, request }) => {
        const take = limiter.take(principal.client);
        if (!take.ok) throw rateLimited(take.retryAfterSecs, "too many assistant requests from this address; slow down");
        return answer(ctx, budget, body, request.signal);
      },
      {
        body: M.AssistantBody,
        // 503 assistant_budget_exhausted / assistant_unavailable / not_priced; 502 and 504 when
        // every provider failed; 429 is also this route's own per-IP bucket (and upstream_rate_limited).
        response: { 200: M.AssistantReply, ...errors(502, 503, 504) },
        detail: {
          summary: "Keyless assistant on the operator's configured model: per-IP limited (429), global daily budget (503 when spent); nothing is stored and no receipt is minted",
          tags: ["inference"],
        },
      },
    );
}
