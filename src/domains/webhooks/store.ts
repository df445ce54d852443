/**
 * Webhook and delivery rows, and how they are shown. Views never carry the secret (sealed or
 * not): it is returned once, by creation, and nowhere else.
 */
import { isoTime } from "../../core/clock.ts";
import { isId } from "../../core/ids.ts";
import type { OutboxEvent } from "../../core/outbox.ts";
import type { Context } from "../../context.ts";

export const WEBHOOK_ID_PREFIX = "wh";
/** Delivery rows are kept this long after their last change (spec §8). */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

export type DisabledReason = "revoked" | "failing";

export interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  events: string;
  description: string | null;
  secret_sealed: string;
  after_seq: number;
  consecutive_failures: number;
  created_at: number;
  disabled_at: number | null;
  disabled_reason: DisabledReason | null;
}

export type DeliveryStatus = "pending" | "delivered" | "failed" | "skipped";

export interface DeliveryRow {
  id: number;
  webhook_id: string;
  event_id: string;
  event_seq: number;
  event_type: string;
  status: DeliveryStatus;
  round: number;
  attempts: number;
  response_status: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  delivered_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  /** active; disabled (by the failure rule: POST …/enable lifts it); revoked (DELETEd: final). */
  status: "active" | "disabled" | "revoked";
  created_at: string;
  disabled_at: string | null;
  consecutive_failures: number;
}

export interface DeliveryView {
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  response_status: number | null;
  attempts: number;
  delivered_at: string | null;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
}

const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

export function webhookView(r: WebhookRow): WebhookView {
  return {
    id: r.id,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    description: r.description,
    status: r.disabled_reason === null ? "active" : r.disabled_reason === "revoked" ? "revoked" : "disabled",
    created_at: isoTime(r.created_at),
    disabled_at: time(r.disabled_at),
    consecutive_failures: r.consecutive_failures,
  };
}

export function deliveryView(r: DeliveryRow): DeliveryView {
  return {
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status,
    response_status: r.response_status,
    attempts: r.attempts,
    delivered_at: time(r.delivered_at),
    next_attempt_at: time(r.next_attempt_at),
    last_error: r.last_error,
    created_at: isoTime(r.created_at),
  };
}

export function getWebhookRow(ctx: Context, id: string): WebhookRow | null {
  if (!isId(id, WEBHOOK_ID_PREFIX)) return null;
  return ctx.db.query<WebhookRow, [string]>("SELECT * FROM webhooks WHERE id = ?").get(id);
}

export function getDeliveryRow(ctx: Context, id: number): DeliveryRow | null {
  return ctx.db.query<DeliveryRow, [number]>("SELECT * FROM webhook_deliveries WHERE id = ?").get(id);
}

/** One outbox event by its id (what a delivery sends). */
export const getEvent = (ctx: Context, id: string): OutboxEvent | null => ctx.outbox.get(id);
