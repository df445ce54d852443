/**
 * What a delivery looks like on the wire (docs/webhooks.md):
 *
 *   POST <url>
 *   Content-Type: application/json
 *   X-Svc-Event: key_created
 *   X-Svc-Event-Id: evt_…            the same on every attempt: receivers drop duplicates by it
 *   X-Svc-Timestamp: 1763726400      when this attempt was sent (unix seconds)
 *   X-Svc-Delivery-Attempt: 1        1 to 4 (a replay starts again at 1)
 *   X-Svc-Signature: sha256=<hex>    HMAC-SHA256 of the raw body with the webhook secret
 *
 *   {"id":"evt_…","type":"key_created","created_at":"2026-11-21T12:00:00.000Z",
 *    "timestamp":1763726400,"account_id":"acct_…","data":{…the event's payload…}}
 *
 * The spec signs the raw body only, so the timestamp is ALSO inside the body: that makes it
 * covered by the signature, and a receiver that refuses old timestamps refuses a captured
 * delivery played back later. created_at is when the event happened; timestamp is the send.
 */
import { isoTime, unixSecs } from "../../core/clock.ts";
import type { OutboxEvent } from "../../core/outbox.ts";
import { signBody } from "./signing.ts";

export interface Envelope {
  id: string;
  type: string;
  created_at: string;
  timestamp: number;
  account_id: string | null;
  data: Record<string, unknown>;
}

export function envelopeOf(event: Pick<OutboxEvent, "id" | "type" | "created_at" | "account_id" | "payload">, sentAt: number): Envelope {
  return { id: event.id, type: event.type, created_at: isoTime(event.created_at), timestamp: unixSecs(sentAt), account_id: event.account_id, data: event.payload };
}

export interface Delivery {
  body: string;
  headers: Record<string, string>;
}

/** The signed request for one attempt. */
export function signedDelivery(envelope: Envelope, secret: string, attempt: number, userAgent: string): Delivery {
  const body = JSON.stringify(envelope);
  return {
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": userAgent,
      "x-svc-event": envelope.type,
      "x-svc-event-id": envelope.id,
      "x-svc-timestamp": String(envelope.timestamp),
      "x-svc-delivery-attempt": String(attempt),
      "x-svc-signature": signBody(secret, body),
    },
  };
}
