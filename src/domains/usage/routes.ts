/**
 * /v1/usage (session): the account's usage summary, event list (JSON or CSV), live stream and
 * signed statements. Every route is scoped to the caller's account. Thin: parse and check the
 * input here, one service call, shape the response. docs/usage.md describes every shape.
 */
import { Elysia } from "elysia";
import { invalidField } from "../../core/errors.ts";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { eventsCsvStream } from "./csv.ts";
import { type EventFilters, EVENTS_LIMIT, eventView, listEvents } from "./events.ts";
import * as M from "./models.ts";
import { closedPeriod, instant, orderedPeriod } from "./period.ts";
import { usageStatement } from "./statement.ts";
import { parseLastEventId, type StreamOptions, usageStream } from "./stream.ts";
import { DAYS_LIMIT, usageSummary } from "./summary.ts";

const tags = ["usage"];
const security = [{ session: [] }];

/** Short identifiers: nothing legitimate is longer, and a bound keeps junk out of cursor scopes. */
function textFilter(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === "" || value.length > 200) throw invalidField(field, "must be 1 to 200 characters");
  return value;
}

function eventFilters(q: typeof M.EventsQuery.static): EventFilters {
  const from = q.from === undefined ? undefined : instant("from", q.from);
  const to = q.to === undefined ? undefined : instant("to", q.to);
  if (from !== undefined && to !== undefined) orderedPeriod(from, to);
  return { kind: textFilter("kind", q.kind), keyId: textFilter("key_id", q.key_id), runId: textFilter("run_id", q.run_id), from, to };
}

export function usageRoutes(ctx: Context, streamOptions: StreamOptions = {}) {
  return new Elysia({ prefix: "/v1/usage" })
    .use(guards.session(ctx))
    .get("", ({ principal, query }) => usageSummary(ctx, principal.accountId, parseLimit(query.days, DAYS_LIMIT, "days")), {
      query: M.SummaryQuery,
      response: { 200: M.Summary },
      detail: { summary: "Usage at a glance: the 25 most recent events and UTC daily buckets (14, or ?days= 1 to 90)", tags, security },
    })
    .get(
      "/events",
      ({ principal, query }) => {
        const format = query.format ?? "json";
        if (format !== "json" && format !== "csv") throw invalidField("format", "must be json or csv");
        const filters = eventFilters(query);
        const page = listEvents(ctx, principal.accountId, filters, { limit: parseLimit(query.limit, EVENTS_LIMIT), cursor: query.cursor });
        if (format === "json") return namedList("events", page.rows.map(eventView), { next_cursor: page.next_cursor });
        const headers: Record<string, string> = { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="usage-events.csv"' };
        if (page.next_cursor) headers["x-next-cursor"] = page.next_cursor;
        return new Response(eventsCsvStream(page.rows), { headers });
      },
      {
        query: M.EventsQuery,
        detail: {
          responses: M.eventsResponses(),
          summary: "Usage events, newest first, filtered and paged (named-key `events` + next_cursor); ?format=csv for CSV with the next cursor in X-Next-Cursor",
          tags,
          security,
        },
      },
    )
    .get(
      "/stream",
      ({ principal, headers, request }) => {
        const last = headers["last-event-id"];
        const resumeAfter = last === undefined || last.trim() === "" ? null : parseLastEventId(ctx, principal.accountId, last);
        return new Response(usageStream(ctx, principal, resumeAfter, request.signal, streamOptions), {
          headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
        });
      },
      {
        headers: M.StreamHeaders,
        detail: {
          summary: "Server-Sent Events of new usage events (event: usage), with heartbeats and Last-Event-ID resume",
          tags,
          security,
          responses: M.streamResponses(),
        },
      },
    )
    .post(
      "/statement",
      ({ principal, body }) => {
        const period = closedPeriod(orderedPeriod(instant("from", body.from), instant("to", body.to)), ctx.clock.now());
        return usageStatement(ctx, principal.accountId, period);
      },
      {
        body: M.StatementBody,
        response: { 200: M.UsageStatement },
        detail: { summary: "A signed statement of the account's spend over a closed period (verifiable like receipts)", tags, security },
      },
    );
}
