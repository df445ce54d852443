/**
 * TypeBox models of the /v1/webhooks routes: closed request bodies (an unknown field is refused
 * and named) and the exact shapes served (store.ts webhookView, deliveryView; replay.ts).
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";
import { MAX_URL_LENGTH } from "./ssrf.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

export const WebhookParams = t.Object({ id: t.String({ description: "wh_… id" }) });

export const CreateWebhookBody = t.Object(
  {
    url: t.String({
      minLength: 1,
      maxLength: MAX_URL_LENGTH,
      // The scheme only (a host, no user info, a public address are checked by the outbound guard).
      pattern: "^[Hh][Tt][Tt][Pp][Ss]?://",
      error: "must be an http:// or https:// URL",
      description: "http(s) URL svc POSTs events to; must reach the public internet unless the operator allows private targets",
    }),
    events: t.Array(t.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 64,
      description: 'event types from the catalogue (docs/webhooks.md), the attestation.* family, or ["*"] alone for all',
    }),
    description: t.Optional(Nullable(t.String({ maxLength: 200 }))),
  },
  closed,
);

export const ReplayBody = t.Object(
  { since: t.String({ format: "date-time", description: "queue again what the webhook missed since this time (within the last 30 days, not in the future)" }) },
  closed,
);

export const WebhookStatus = t.Union([t.Literal("active"), t.Literal("disabled"), t.Literal("revoked")], {
  description: "active; disabled by the failure rule (POST …/enable lifts it); revoked by DELETE (final)",
});

export const Webhook = t.Object(
  {
    id: t.String(),
    url: t.String(),
    events: t.Array(t.String(), { description: 'the subscription: event types, families, or ["*"]' }),
    description: Nullable(t.String()),
    status: WebhookStatus,
    created_at: Time,
    disabled_at: Nullable(Time),
    consecutive_failures: Int({ minimum: 0, description: "events in a row that failed every attempt" }),
  },
  { ...closed, description: "A webhook (never its secret)" },
);

export const CreatedWebhook = t.Object(
  { ...Webhook.properties, secret: t.String({ pattern: "^whsec_", description: "the signing secret (X-Svc-Signature): shown once, here" }) },
  { ...closed, description: "The new webhook, with its signing secret (shown once)" },
);

export const DeliveryStatus = t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("failed"), t.Literal("skipped")]);

export const Delivery = t.Object(
  {
    event_id: t.String(),
    event_type: t.String(),
    status: DeliveryStatus,
    response_status: Nullable(Int({ description: "the receiver's HTTP status on the last attempt" })),
    attempts: Int({ minimum: 0 }),
    delivered_at: Nullable(Time),
    next_attempt_at: Nullable(Time),
    last_error: Nullable(t.String()),
    created_at: Time,
  },
  closed,
);

export const TestEvent = t.Object({ event_id: t.String(), webhook_id: t.String() }, { ...closed, description: "Queued: the webhook_test event goes through the outbox to this webhook" });

export const ReplayResult = t.Object(
  {
    webhook_id: t.String(),
    since: Time,
    queued: Int({ minimum: 0, description: "events queued by this call" }),
    more: t.Boolean({ description: "more missed events remain: call again with the same since" }),
  },
  { ...closed, description: "Queued again: what this call found missed" },
);
