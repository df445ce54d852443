/**
 * /v1/usage (session): the account's usage summary, event list (JSON or CSV), live stream and
 * signed statements. Every route is scoped to the caller's account. Thin: parse and check the
 * input here, one service call, shape the response. docs/usage.md describes every shape.
 */
import { Elysia, t } from "elysia";
import { invalidField } from "../../core/errors.ts";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { eventsCsvStream } from "./csv.ts";
import { type EventFilters, EVENTS_LIMIT, eventView, listEvents } from "./events.ts";
import { closedPeriod, instant, orderedPeriod, TIME_ERROR } from "./period.ts";
import { usageStatement } from "./statement.ts";
import { parseLastEventId, type StreamOptions, usageStream } from "./stream.ts";
import { usageSummary } from "./summary.ts";

const tags = ["usage"];
const security = [{ session: [] }];

const Event = t.Object({
  id: t.String(),
  created_at: t.String({ format: "date-time" }),
  kind: t.String(),
  resource: Nullable(t.String()),
  key_id: Nullable(t.String()),
  run_id: Nullable(t.String()),
  cost_micro_usd: MicroUsd(),
  reserved_micro_usd: MicroUsd(),
  status: t.String(),
  units: t.Record(t.String(), t.Unknown()),
});
const Spend = t.Object({ cost_micro_usd: MicroUsd(), events: Int() });
const ByKind = t.Record(t.String(), Spend, { description: "per usage kind" });
const Time = (description: string) => t.String({ maxLength: 40, description: `${description}; RFC 3339 with a time zone` });

const EventsQuery = t.Object({
  kind: t.Optional(t.String({ description: "only events of this kind (inference, sandbox, …)" })),
  key_id: t.Optional(t.String({ description: "only events billed to this API key" })),
  run_id: t.Optional(t.String({ description: "only events of this run" })),
  from: t.Optional(Time("events created at or after this instant")),
  to: t.Optional(Time("events created before this instant")),
  limit: t.Optional(t.String({ description: `page size ${EVENTS_LIMIT.min}–${EVENTS_LIMIT.max}, default ${EVENTS_LIMIT.default}; larger values are clamped` })),
  cursor: t.Optional(t.String({ description: "next_cursor of the previous page (or X-Next-Cursor of a CSV page)" })),
  format: t.Optional(t.String({ description: "json (default) or csv" })),
});

/** Short identifiers: nothing legitimate is longer, and a bound keeps junk out of cursor scopes. */
function textFilter(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === "" || value.length > 200) throw invalidField(field, "must be 1 to 200 characters");
  return value;
}

function eventFilters(q: typeof EventsQuery.static): EventFilters {
  const from = q.from === undefined ? undefined : instant("from", q.from);
  const to = q.to === undefined ? undefined : instant("to", q.to);
  if (from !== undefined && to !== undefined) orderedPeriod(from, to);
  return { kind: textFilter("kind", q.kind), keyId: textFilter("key_id", q.key_id), runId: textFilter("run_id", q.run_id), from, to };
}

export function usageRoutes(ctx: Context, streamOptions: StreamOptions = {}) {
  return new Elysia({ prefix: "/v1/usage" })
    .use(guards.session(ctx))
    .get("", ({ principal }) => usageSummary(ctx, principal.accountId), {
      response: t.Object({
        recent: t.Array(Event, { maxItems: 25 }),
        daily: t.Array(t.Object({ date: t.String({ format: "date" }), cost_micro_usd: MicroUsd(), events: Int(), by_kind: ByKind }), { minItems: 14, maxItems: 14 }),
        totals: t.Object({ from: t.String({ format: "date" }), to: t.String({ format: "date" }), days: Int(), cost_micro_usd: MicroUsd(), events: Int(), by_kind: ByKind }),
      }),
      detail: { summary: "Usage at a glance: the 25 most recent events and 14 UTC daily buckets", tags, security },
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
        query: EventsQuery,
        detail: {
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
      { detail: { summary: "Server-Sent Events of new usage events (event: usage), with heartbeats and Last-Event-ID resume", tags, security } },
    )
    .post(
      "/statement",
      ({ principal, body }) => {
        const period = closedPeriod(orderedPeriod(instant("from", body.from), instant("to", body.to)), ctx.clock.now());
        return usageStatement(ctx, principal.accountId, period);
      },
      {
        body: t.Object({ from: Time("start of the period, inclusive"), to: Time("end of the period, exclusive; not in the future") }, { additionalProperties: false }),
        response: t.Object({
          statement: t.String({ description: "base64url of the canonical JSON of payload" }),
          signature: t.String({ description: "EIP-191 personal_sign of statement by signer, 0x-hex" }),
          signer: t.String(),
          payload: t.Object({
            v: t.Literal(1),
            type: t.Literal("usage-statement"),
            account_id: t.String(),
            from: t.String({ format: "date-time" }),
            to: t.String({ format: "date-time" }),
            cost_micro_usd: MicroUsd(),
            events: Int(),
            by_kind: ByKind,
            by_key: t.Record(t.String(), Spend, { description: 'per API key id; "none" for work done without a key' }),
            issued_at: t.String({ format: "date-time" }),
          }),
        }),
        detail: { summary: "A signed statement of the account's spend over a closed period (verifiable like receipts)", tags, security },
      },
    );
}
