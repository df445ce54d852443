/**
 * POST /v1/reports/sla (session): availability, latency and error rate of the service over a
 * window (default the last 30 days, at most 90). Session class: it reports on the service as a
 * whole, aggregate only, nothing of any account; a signed-in customer is who asks for it.
 */
import { Elysia } from "elysia";
import { invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { closedPeriod, instant, orderedPeriod, type Period } from "../usage/index.ts";
import * as M from "./models.ts";
import { DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS, slaReport } from "./sla.ts";

const DAY_MS = 86_400_000;

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
      body: M.SlaBody,
      response: { 200: M.SlaReport },
      detail: { summary: "Availability (health samples), latency percentiles and error rate (request metrics) over a window", tags: ["reports"], security: [{ session: [] }] },
    });
}
