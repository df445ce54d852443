/**
 * POST /v1/reports/sla (session): availability, latency and error rate of the service over a
 * window (default the last 30 days, at most 90). Session class: it reports on the service as a
 * whole, aggregate only, nothing of any account; a signed-in customer is who asks for it.
 */
import { Elysia, t } from "elysia";
import { invalidField } from "../../core/errors.ts";
import { Int, Nullable } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { closedPeriod, instant, orderedPeriod, type Period } from "../usage/index.ts";
import { DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS, slaReport } from "./sla.ts";

const DAY_MS = 86_400_000;
const Time = (description: string) => t.String({ maxLength: 40, description: `${description}; RFC 3339 with a time zone` });
const Ms = Nullable(t.Number({ minimum: 0 }));
const Latency = t.Object({ p50: Ms, p95: Ms, p99: Ms, max: Ms }, { description: "milliseconds" });
const Figures = { total: Int(), errors_5xx: Int(), error_rate: Nullable(t.Number({ minimum: 0, maximum: 1 })), latency_ms: Latency };

/** Missing ends default to "the 30 days up to now"; the window must be over and at most 90 days long. */
function slaWindow(now: number, body: { from?: string; to?: string }): Period {
  const to = body.to === undefined ? now : instant("to", body.to);
  const from = body.from === undefined ? to - DEFAULT_WINDOW_DAYS * DAY_MS : instant("from", body.from);
  const period = closedPeriod(orderedPeriod(from, to), now);
  if (period.to - period.from > MAX_WINDOW_DAYS * DAY_MS) throw invalidField("from", `the window may be at most ${MAX_WINDOW_DAYS} days long`);
  return period;
}

export function reportRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/reports" })
    .use(guards.session(ctx))
    .post("/sla", ({ body }) => slaReport(ctx, slaWindow(ctx.clock.now(), body ?? {})), {
      body: t.Optional(
        t.Object(
          { from: t.Optional(Time("start of the window, inclusive; default: 30 days before `to`")), to: t.Optional(Time("end of the window, exclusive; default: now")) },
          { additionalProperties: false },
        ),
      ),
      response: t.Object({
        from: t.String({ format: "date-time" }),
        to: t.String({ format: "date-time" }),
        generated_at: t.String({ format: "date-time" }),
        availability: t.Object({
          ratio: Nullable(t.Number({ minimum: 0, maximum: 1 })),
          healthy_samples: Int(),
          samples: Int(),
          expected_samples: Int(),
          sample_interval_secs: Int(),
          since: Nullable(t.String({ format: "date-time" })),
        }),
        requests: t.Object({ ...Figures, by_route: t.Array(t.Object({ method: t.String(), route: t.String(), ...Figures })) }),
        methodology: t.Object({
          availability: t.String(),
          latency: t.String(),
          error_rate: t.String(),
          bucket_bounds_ms: t.Array(t.Number()),
          request_resolution_secs: Int(),
        }),
      }),
      detail: { summary: "Availability (health samples), latency percentiles and error rate (request metrics) over a window", tags: ["reports"], security: [{ session: [] }] },
    });
}
