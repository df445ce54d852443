/**
 * POST /v1/assistant (public, spec §4.1): keyless, per-IP limited, under a global daily budget;
 * persists nothing and mints no receipt (assistant.ts says why and how). Mounted only when
 * config `assistant.model` is set — otherwise the route does not exist (404), as every
 * unconfigured group.
 */
import { Elysia, t } from "elysia";
import { rateLimited } from "../../core/errors.ts";
import { Int } from "../../core/schemas.ts";
import { RateLimiter } from "../../core/ratelimit.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { AssistantBudget, answer, MAX_TURN_CHARS, MAX_TURNS } from "./assistant.ts";

export function assistantRoutes(ctx: Context) {
  const cfg = ctx.config.assistant;
  const budget = new AssistantBudget(ctx);
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
        body: t.Object(
          {
            messages: t.Array(t.Object({ role: t.Union([t.Literal("user"), t.Literal("assistant")]), content: t.String({ minLength: 1, maxLength: MAX_TURN_CHARS }) }), { minItems: 1, maxItems: MAX_TURNS }),
            max_tokens: t.Optional(Int({ minimum: 1 })),
          },
          { additionalProperties: false },
        ),
        response: t.Object({
          object: t.Literal("assistant.reply"),
          model: t.String(),
          message: t.Object({ role: t.Literal("assistant"), content: t.String() }),
          finish_reason: t.String(),
        }),
        detail: {
          summary: "Keyless assistant on the operator's configured model: per-IP limited (429), global daily budget (503 when spent); nothing is stored and no receipt is minted",
          tags: ["inference"],
        },
      },
    );
}
