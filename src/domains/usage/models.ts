/**
 * TypeBox models of /v1/usage: the summary, the event list (named-key `events` + next_cursor,
 * spec §2.1; or CSV), the SSE feed and the signed statement.
 *
 * Query parameters are checked by the handlers, whose 400s name the bare field (`kind`,
 * `format`, `from`): a schema check would name `query.kind`. So the query schema states those
 * rules in descriptions (and `format`'s closed set as an `enum`, which TypeBox does not enforce
 * on a string) while request bodies state them as patterns that are enforced, with the same
 * message the handler would give.
 */
import { t, type TSchema } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { Address, Signature, Statement } from "../receipts/index.ts";
import { CSV_COLUMNS } from "./csv.ts";
import { EVENTS_LIMIT } from "./events.ts";
import { INSTANT_PATTERN, TIME_ERROR } from "./period.ts";
import { DAILY_BUCKETS, DAYS_LIMIT, RECENT_EVENTS } from "./summary.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const Day = t.String({ format: "date" });

export const Event = t.Object(
  {
    id: t.String(),
    created_at: Time,
    kind: t.String({ description: "inference, sandbox, …" }),
    resource: Nullable(t.String()),
    key_id: Nullable(t.String()),
    run_id: Nullable(t.String()),
    cost_micro_usd: MicroUsd(),
    reserved_micro_usd: MicroUsd(),
    status: t.String(),
    units: t.Record(t.String(), t.Unknown(), { description: "what was used, by the kind's own measures (tokens, seconds, …): open by kind" }),
  },
  closed,
);

export const Spend = t.Object({ cost_micro_usd: MicroUsd(), events: Int({ minimum: 0 }) }, closed);
const ByKind = t.Record(t.String(), Spend, { description: "per usage kind" });

export const SummaryQuery = t.Object({
  days: t.Optional(t.String({ description: `UTC days to bucket, today included: a whole number from ${DAYS_LIMIT.min}, default ${DAILY_BUCKETS}; above ${DAYS_LIMIT.max} is clamped to ${DAYS_LIMIT.max}` })),
});

export const Summary = t.Object(
  {
    recent: t.Array(Event, { maxItems: RECENT_EVENTS }),
    daily: t.Array(t.Object({ date: Day, cost_micro_usd: MicroUsd(), events: Int({ minimum: 0 }), by_kind: ByKind }, closed), {
      minItems: DAYS_LIMIT.min,
      maxItems: DAYS_LIMIT.max,
      description: "UTC days, oldest first; the last is today so far",
    }),
    totals: t.Object({ from: Day, to: Day, days: Int(), cost_micro_usd: MicroUsd(), events: Int({ minimum: 0 }), by_kind: ByKind }, closed),
  },
  closed,
);

// ---- GET /v1/usage/events ----------------------------------------------------------------

const QueryTime = (description: string) => t.String({ maxLength: 40, description: `${description}; RFC 3339 with a time zone (${TIME_ERROR.replace(/^must be /, "")})` });
const Filter = (description: string) => t.Optional(t.String({ description: `${description}; 1 to 200 characters` }));

export const EventsQuery = t.Object({
  kind: Filter("only events of this kind (inference, sandbox, …)"),
  key_id: Filter("only events billed to this API key"),
  run_id: Filter("only events of this run"),
  from: t.Optional(QueryTime("events created at or after this instant")),
  to: t.Optional(QueryTime("events created before this instant; after `from`")),
  limit: t.Optional(t.String({ description: `page size: a whole number from ${EVENTS_LIMIT.min}, default ${EVENTS_LIMIT.default}; above ${EVENTS_LIMIT.max} is clamped to ${EVENTS_LIMIT.max}` })),
  cursor: t.Optional(t.String({ description: "next_cursor of the previous page (or X-Next-Cursor of a CSV page), for the same filters" })),
  format: t.Optional(t.String({ enum: ["json", "csv"], description: "json (default) or csv" })),
});

export const EventsPage = t.Object(
  {
    events: t.Array(Event, { maxItems: EVENTS_LIMIT.max, description: "newest first" }),
    next_cursor: Nullable(t.String({ description: "pass as ?cursor= for the next page; null on the last" })),
  },
  closed,
);

/**
 * One status, two media types, so declared in the document directly (a response schema is
 * documented as JSON only, and the CSV answer is a Response that Elysia does not check). A
 * function: the document builder adds the error statuses to the object it is given.
 */
/** A TypeBox schema as the plain JSON Schema the document holds (what the generator would emit for a response schema). */
const jsonSchema = (schema: TSchema) => JSON.parse(JSON.stringify(schema));

export const eventsResponses = () => ({
  200: {
    description: "A page of events: JSON by default, CSV with ?format=csv",
    headers: {
      "X-Next-Cursor": { description: "CSV only: the next page's cursor (absent on the last page)", schema: { type: "string" as const } },
    },
    content: {
      "application/json": { schema: jsonSchema(EventsPage) },
      "text/csv": {
        schema: { type: "string" as const, description: `RFC 4180, CRLF line ends; header line ${CSV_COLUMNS.join(",")}; units as JSON text, null as an empty field` },
      },
    },
  },
});

// ---- GET /v1/usage/stream ----------------------------------------------------------------

export const StreamHeaders = t.Object({
  "last-event-id": t.Optional(t.String({ description: "resume after this event id (the `id:` of a frame this account was sent)" })),
});

export const streamResponses = () => ({
  200: {
    description: "Server-Sent Events: `event: usage` frames whose data is an event as GET /v1/usage/events shows it, and heartbeat comments",
    content: { "text/event-stream": { schema: { type: "string" as const } } },
  },
  400: { description: "Last-Event-ID is not an id this account was sent (invalid_cursor)" },
});

// ---- POST /v1/usage/statement ------------------------------------------------------------

const BodyTime = (description: string) =>
  t.String({ maxLength: 40, pattern: INSTANT_PATTERN, error: TIME_ERROR, description: `${description}; RFC 3339 with a time zone` });

export const StatementBody = t.Object(
  { from: BodyTime("start of the period, inclusive"), to: BodyTime("end of the period, exclusive; after `from` and not in the future") },
  closed,
);

export const UsageStatement = t.Object(
  {
    statement: Statement,
    signature: Signature,
    signer: Address,
    payload: t.Object(
      {
        v: t.Literal(1),
        type: t.Literal("usage-statement"),
        account_id: t.String(),
        from: Time,
        to: Time,
        cost_micro_usd: MicroUsd(),
        events: Int({ minimum: 0 }),
        by_kind: ByKind,
        by_key: t.Record(t.String(), Spend, { description: 'per API key id; "none" for work done without a key' }),
        issued_at: Time,
      },
      closed,
    ),
  },
  closed,
);
