/**
 * Replay (beyond the spec: POST /v1/webhooks/:id/replay, `svc webhooks replay`). The retry
 * schedule gives up after about an hour; a receiver that was down longer, or a webhook that was
 * disabled meanwhile, has missed events. Replay queues again every event since a time that the
 * webhook subscribes to and that it has not received:
 *
 *   - a delivery that failed every attempt, or was skipped because the webhook was disabled:
 *     a new round of up to four attempts (same event id, so receivers still drop duplicates);
 *   - an event that found the webhook disabled and so was never queued: queued now;
 *   - delivered deliveries, and pending ones still on their schedule, are left alone.
 *
 * Only the delivery-row retention (30 days) can be replayed: older rows are pruned, so svc could
 * no longer tell a delivered event from a missed one. Test events are not replayed.
 */
import { invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { WEBHOOK_TEST, wants } from "./catalog.ts";
import { queueDelivery, scheduleAttempt } from "./fanout.ts";
import { assertActive } from "./service.ts";
import { DELIVERY_RETENTION_MS, type DeliveryStatus, type WebhookRow } from "./store.ts";

/** Events one replay call queues; `more` says to call again with the same `since`. */
export const REPLAY_BATCH = 10_000;

export interface ReplayResult {
  webhook_id: string;
  since: string;
  /** Events queued by this call. */
  queued: number;
  /** True when more missed events remain: call again with the same since. */
  more: boolean;
}

/** A pending delivery whose next attempt is this overdue has lost its job (it failed for good): replay takes it over. */
const STUCK_MS = 2 * 3_600_000;

/** Events read per page while looking for what to replay. */
const PAGE = 1000;

interface Candidate {
  seq: number;
  id: string;
  type: string;
  delivery_id: number | null;
  status: DeliveryStatus | null;
  round: number | null;
  next_attempt_at: number | null;
}

/** The account's events after `after` (since `since`), each with this webhook's delivery row for it if any. */
function candidates(ctx: Context, row: WebhookRow, after: number, since: number): Candidate[] {
  const events = ctx.outbox.scanAccount(row.account_id, after, since, PAGE);
  if (!events.length) return [];
  const deliveries = new Map(
    ctx.db
      .query<{ event_id: string; id: number; status: DeliveryStatus; round: number; next_attempt_at: number | null }, [string, string]>(
        "SELECT event_id, id, status, round, next_attempt_at FROM webhook_deliveries WHERE webhook_id = ? AND event_id IN (SELECT value FROM json_each(?))",
      )
      .all(row.id, JSON.stringify(events.map((e) => e.id)))
      .map((d) => [d.event_id, d]),
  );
  return events.map((e) => {
    const d = deliveries.get(e.id);
    return { seq: e.seq, id: e.id, type: e.type, delivery_id: d?.id ?? null, status: d?.status ?? null, round: d?.round ?? null, next_attempt_at: d?.next_attempt_at ?? null };
  });
}

export function replayMissed(ctx: Context, row: WebhookRow, since: number): ReplayResult {
  const now = ctx.clock.now();
  if (!Number.isFinite(since)) throw invalidField("since", "must be an RFC 3339 date-time");
  if (since > now) throw invalidField("since", "must not be in the future");
  if (since < now - DELIVERY_RETENTION_MS) throw invalidField("since", "must be within the last 30 days (older delivery records are pruned, so missed events can no longer be told from delivered ones)");
  assertActive(row, "replay events");
  const filter = JSON.parse(row.events) as string[];
  return ctx.tx.run(() => {
    // Events the fan-out has not reached yet may be queued here first: either way the
    // (webhook, event) pair is queued once, since the first writer's row makes the other skip it.
    let queued = 0;
    let after = row.after_seq;
    let more = false;
    // Pages over the account's events; most may not match the filter or may already be delivered.
    for (;;) {
      const page = candidates(ctx, row, after, since);
      for (const e of page) {
        if (e.type === WEBHOOK_TEST || !wants(filter, e.type)) continue;
        if (e.status === "delivered") continue;
        // Still on its schedule. (A new round supersedes an old one: a late job of the old round does nothing.)
        if (e.status === "pending" && (e.next_attempt_at ?? 0) > now - STUCK_MS) continue;
        if (queued === REPLAY_BATCH) {
          more = true;
          break;
        }
        if (e.delivery_id === null) queueDelivery(ctx, row.id, e);
        else {
          const round = e.round! + 1;
          ctx.db
            .query("UPDATE webhook_deliveries SET status = 'pending', round = ?, attempts = 0, next_attempt_at = ?, delivered_at = NULL, updated_at = ? WHERE id = ?")
            .run(round, now, now, e.delivery_id);
          scheduleAttempt(ctx, e.delivery_id, round, 1, now);
        }
        queued++;
      }
      if (more || page.length < PAGE) break;
      after = page.at(-1)!.seq;
    }
    return { webhook_id: row.id, since: new Date(since).toISOString(), queued, more };
  });
}
