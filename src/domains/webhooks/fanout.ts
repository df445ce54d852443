/**
 * From committed events to queued deliveries. The outbox table is the source of truth: a
 * cursor (webhook_fanout.last_seq) walks it in commit order, and for a batch of events, in ONE
 * transaction with the cursor's move, writes a delivery row per subscribed webhook and
 * schedules its first attempt. A crash anywhere leaves either all of a batch or none of it,
 * so no event is skipped and none is queued twice (the (webhook, event) pair is unique too).
 * A batch nobody subscribes to is only read (see `scanned`), so events without subscribers
 * cost the hot path no extra write.
 *
 * The in-process bus only says "look now" (src/domains/webhooks/delivery.ts); events written by
 * another process (the CLI) or committed just before a crash are found by the periodic sweep.
 */
import type { OutboxEventText } from "../../core/outbox.ts";
import type { Context } from "../../context.ts";
import { WEBHOOK_TEST, wants } from "./catalog.ts";

export const DELIVER_JOB = "webhooks.deliver";
const BATCH = 500;

export interface AttemptPayload {
  delivery: number;
  round: number;
  attempt: number;
  [key: string]: unknown;
}

/** Queues attempt `attempt` of a delivery round as a durable job (idempotent per delivery, round and attempt). */
export function scheduleAttempt(ctx: Context, delivery: number, round: number, attempt: number, runAt: number): void {
  const payload: AttemptPayload = { delivery, round, attempt };
  // maxAttempts is for the handler itself failing (the database busy, a bug); a failed HTTP
  // attempt is not an error of the job: it records itself and schedules the next one.
  ctx.scheduler.schedule(DELIVER_JOB, payload, { runAt, uniqueKey: `${DELIVER_JOB}:${delivery}:${round}:${attempt}`, maxAttempts: 5 });
}

type EventRow = OutboxEventText;

interface Subscriber {
  id: string;
  events: string[];
  after_seq: number;
}

/** Writes the delivery row and its first attempt; false when the pair was already queued. Inside a transaction. */
export function queueDelivery(ctx: Context, webhookId: string, event: { seq: number; id: string; type: string }): boolean {
  const now = ctx.clock.now();
  const row = ctx.db
    .query<{ id: number }, [string, string, number, string, number, number, number]>(
      `INSERT OR IGNORE INTO webhook_deliveries (webhook_id, event_id, event_seq, event_type, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    )
    .get(webhookId, event.id, event.seq, event.type, now, now, now);
  if (!row) return false;
  scheduleAttempt(ctx, row.id, 1, 1, now);
  return true;
}

function subscribersOf(ctx: Context, accountId: string): Subscriber[] {
  return ctx.db
    .query<{ id: string; events: string; after_seq: number }, [string]>("SELECT id, events, after_seq FROM webhooks WHERE account_id = ? AND disabled_at IS NULL")
    .all(accountId)
    .map((w) => ({ id: w.id, events: JSON.parse(w.events) as string[], after_seq: w.after_seq }));
}

function targetsOf(event: EventRow, subscribers: Subscriber[]): Subscriber[] {
  const live = subscribers.filter((s) => s.after_seq < event.seq);
  if (event.type === WEBHOOK_TEST) {
    // A test event is for the webhook it was sent to, whatever that webhook subscribed to.
    const target = (JSON.parse(event.payload) as { webhook_id?: unknown }).webhook_id;
    return live.filter((s) => s.id === target);
  }
  return live.filter((s) => wants(s.events, event.type));
}

/**
 * How far this process has read past the durable cursor without finding anything to queue. Most
 * events (a receipt per metered call) have no subscriber; for them the fan-out only reads, and
 * the durable cursor catches up at the next periodic sweep (persistPosition). Lost in a crash,
 * this costs a re-read of events that had no subscriber — never a missed or doubled delivery.
 */
const scanned = new WeakMap<Context, number>();

const durableCursor = (ctx: Context): number => ctx.db.query<{ last_seq: number }, []>("SELECT last_seq FROM webhook_fanout WHERE id = 1").get()!.last_seq;

function readAfter(ctx: Context, seq: number): EventRow[] {
  return ctx.outbox.scan(seq, BATCH);
}

/** Each event's subscribers (one webhooks query per account in the batch). */
function plan(ctx: Context, events: EventRow[]): [EventRow, Subscriber[]][] {
  const byAccount = new Map<string, Subscriber[]>();
  return events.map((event) => {
    if (event.account_id === null) return [event, []]; // webhooks belong to accounts; deployment-wide events have no subscriber
    let subscribers = byAccount.get(event.account_id);
    if (!subscribers) byAccount.set(event.account_id, (subscribers = subscribersOf(ctx, event.account_id)));
    return [event, targetsOf(event, subscribers)];
  });
}

/** Fans out everything committed since the cursor. Synchronous: never interleaves with itself. Returns events read. */
export function fanOut(ctx: Context): number {
  let total = 0;
  for (;;) {
    const from = Math.max(durableCursor(ctx), scanned.get(ctx) ?? 0);
    const events = readAfter(ctx, from);
    if (!events.length) return total;
    const last = events.at(-1)!.seq;
    if (plan(ctx, events).every(([, targets]) => !targets.length)) scanned.set(ctx, last);
    else {
      // Planned again inside the transaction: a webhook may have been revoked since the read above.
      ctx.tx.run(() => {
        for (const [event, targets] of plan(ctx, events)) for (const s of targets) queueDelivery(ctx, s.id, event);
        ctx.db.query("UPDATE webhook_fanout SET last_seq = max(last_seq, ?) WHERE id = 1").run(last);
      });
      scanned.set(ctx, last);
    }
    total += events.length;
    if (events.length < BATCH) return total;
  }
}

/** Writes the read-only progress to the durable cursor (the periodic sweep, at most once per sweep). */
export function persistPosition(ctx: Context): void {
  const position = scanned.get(ctx);
  if (position !== undefined && position > durableCursor(ctx)) ctx.db.query("UPDATE webhook_fanout SET last_seq = max(last_seq, ?) WHERE id = 1").run(position);
}
