/**
 * The dispatcher (spec §6 delivery rules). Every attempt is a scheduler job, so the schedule
 * survives restarts; a job that was running when the process died is run again at the next
 * start, which is why delivery is at least once (the event id is the same on every attempt).
 *
 *   attempt 1 at once, then 2 after 30 s, 3 after 5 min, 4 after 1 h (each counted from the
 *   failure before it). Any non-2xx answer (redirects are not followed), network error,
 *   connection reset, refused target or timeout (webhooks.timeout_secs) is a failed attempt.
 *   After the 4th failure the delivery is failed; 5 failed events in a row disable the webhook,
 *   and one delivered event resets the count.
 *
 * A job handler is idempotent: it acts only when its delivery is still pending, in its round,
 * with the attempt not yet recorded; the outcome is recorded and the next attempt scheduled in
 * one transaction.
 */
import type { OutboxEvent } from "../../core/outbox.ts";
import type { Job, Scheduler } from "../../core/scheduler.ts";
import type { Context } from "../../context.ts";
import { envelopeOf, signedDelivery } from "./envelope.ts";
import { type AttemptPayload, DELIVER_JOB, fanOut, persistPosition, scheduleAttempt } from "./fanout.ts";
import { disableWebhook } from "./service.ts";
import { accountsWithWebhooks } from "./live-accounts.ts";
import { openSecret } from "./signing.ts";
import { postPinned, resolveTarget, TargetRefused } from "./ssrf.ts";
import { DELIVERY_RETENTION_MS, type DeliveryRow, getDeliveryRow, getEvent, getWebhookRow, type WebhookRow } from "./store.ts";

/** Waits before attempts 2, 3 and 4. */
export const RETRY_DELAYS_MS = [30_000, 5 * 60_000, 60 * 60_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Consecutive events failing every attempt that disable a webhook. */
export const DISABLE_AFTER = 5;

const FANOUT_JOB = "webhooks.fanout";
const PRUNE_JOB = "webhooks.prune";
/** The sweep that catches events another process committed (the bus only reaches this one). */
const FANOUT_SWEEP_MS = 5_000;
const HOUR_MS = 3_600_000;
/** Response bodies are read (so the connection can be reused) up to this much, never kept. */
const MAX_RESPONSE_BYTES = 64 * 1024;

interface Outcome {
  ok: boolean;
  status: number | null;
  /** Short and secret-free: never the URL (it may carry a token) or the receiver's body. */
  error: string | null;
}

/** Reads and drops the body, up to a bound: a receiver cannot make svc buffer a large answer. */
async function drain(res: Response): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
      if (read > MAX_RESPONSE_BYTES) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // the status already decided the attempt
  }
}

/** A network failure in a few words, from its code only (messages can contain the URL). */
function describeFailure(err: unknown, timedOut: boolean, timeoutSecs: number): string {
  if (timedOut || (err as { name?: string }).name === "TimeoutError") return `timed out after ${timeoutSecs} s`;
  const code = String((err as { code?: unknown }).code ?? "");
  if (code === "ECONNRESET") return "connection reset";
  if (code === "ECONNREFUSED" || code === "ConnectionRefused") return "connection refused";
  if (code === "ENOTFOUND") return "host not found";
  if (/CERT|TLS|SSL/i.test(code)) return `TLS error (${code})`;
  return code ? `network error (${code})` : "network error";
}

async function send(ctx: Context, hook: WebhookRow, event: OutboxEvent, attempt: number, signal: AbortSignal): Promise<Outcome> {
  let target;
  try {
    target = await resolveTarget(hook.url, { allowPrivate: ctx.config.webhooks.allow_private });
  } catch (err) {
    if (err instanceof TargetRefused) return { ok: false, status: null, error: `refused: the URL ${err.message.split(";")[0]}` };
    throw err;
  }
  const secret = openSecret(ctx.sealer, hook.id, hook.secret_sealed);
  const { body, headers } = signedDelivery(envelopeOf(event, ctx.clock.now()), secret, attempt, `svc-webhooks/${ctx.version}`);
  const timeoutSecs = ctx.config.webhooks.timeout_secs;
  const timeout = AbortSignal.timeout(timeoutSecs * 1000);
  try {
    const res = await postPinned(target, { body, headers, signal: AbortSignal.any([signal, timeout]) });
    await drain(res);
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, error: null };
    return { ok: false, status: res.status, error: res.status >= 300 && res.status < 400 ? `redirect (HTTP ${res.status}) not followed` : `HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, status: null, error: describeFailure(err, timeout.aborted, timeoutSecs) };
  }
}

/** Still this job's to record? (A replay may have started a new round, or a re-run already recorded it.) */
const current = (d: DeliveryRow | null, round: number, attempt: number): d is DeliveryRow =>
  d !== null && d.status === "pending" && d.round === round && d.attempts < attempt;

function record(ctx: Context, d: DeliveryRow, attempt: number, outcome: Outcome): void {
  ctx.tx.run(() => {
    if (!current(getDeliveryRow(ctx, d.id), d.round, attempt)) return;
    const now = ctx.clock.now();
    const set = ctx.db.query(
      "UPDATE webhook_deliveries SET status = ?, attempts = ?, response_status = ?, last_error = ?, next_attempt_at = ?, delivered_at = ?, updated_at = ? WHERE id = ?",
    );
    if (outcome.ok) {
      set.run("delivered", attempt, outcome.status, null, null, now, now, d.id);
      ctx.db.query("UPDATE webhooks SET consecutive_failures = 0 WHERE id = ?").run(d.webhook_id);
      return;
    }
    if (attempt < MAX_ATTEMPTS) {
      const next = now + RETRY_DELAYS_MS[attempt - 1]!;
      set.run("pending", attempt, outcome.status, outcome.error, next, null, now, d.id);
      scheduleAttempt(ctx, d.id, d.round, attempt + 1, next);
      return;
    }
    set.run("failed", attempt, outcome.status, outcome.error, null, null, now, d.id);
    const hook = ctx.db.query<WebhookRow, [string]>("UPDATE webhooks SET consecutive_failures = consecutive_failures + 1 WHERE id = ? RETURNING *").get(d.webhook_id)!;
    if (hook.consecutive_failures >= DISABLE_AFTER && hook.disabled_at === null) {
      disableWebhook(ctx, hook, "failing");
      ctx.log.warn("webhook disabled: consecutive events failed every attempt", { webhook_id: hook.id, account_id: hook.account_id, consecutive_failures: hook.consecutive_failures });
    }
  });
}

/** The job handler for one attempt. */
export async function attemptDelivery(ctx: Context, job: Job, signal: AbortSignal): Promise<void> {
  const { delivery, round, attempt } = job.payload as AttemptPayload;
  const d = getDeliveryRow(ctx, delivery);
  if (!current(d, round, attempt)) return;
  const hook = getWebhookRow(ctx, d.webhook_id)!;
  if (hook.disabled_at !== null) {
    // disableWebhook skips what was queued at the time; this catches a delivery queued in a race with it.
    ctx.db.query("UPDATE webhook_deliveries SET status = 'skipped', last_error = ?, next_attempt_at = NULL, updated_at = ? WHERE id = ? AND status = 'pending'").run(hook.disabled_reason === "revoked" ? "webhook revoked" : "webhook disabled", ctx.clock.now(), d.id);
    return;
  }
  const event = getEvent(ctx, d.event_id);
  if (!event) {
    ctx.db.query("UPDATE webhook_deliveries SET status = 'skipped', last_error = 'the event is no longer stored', next_attempt_at = NULL, updated_at = ? WHERE id = ?").run(ctx.clock.now(), d.id);
    return;
  }
  const outcome = await send(ctx, hook, event, attempt, signal);
  // svc is stopping: leave the attempt unrecorded; the scheduler hands the job back and the next start sends it again.
  if (signal.aborted) throw new Error("stopped before the attempt finished");
  record(ctx, d, attempt, outcome);
}

/** Delivery rows whose last change is older than the retention (spec §8: 30 days). */
export function pruneDeliveries(ctx: Context): number {
  const cutoff = ctx.clock.now() - DELIVERY_RETENTION_MS;
  let removed = 0;
  for (;;) {
    const n = ctx.db
      .query("DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE updated_at < ? AND status != 'pending' LIMIT 5000)")
      .run(cutoff).changes;
    removed += n;
    if (n < 5000) return removed;
  }
}

const registered = new WeakSet<Scheduler>();

/**
 * Wires the dispatcher into a context: the attempt jobs, the fan-out (woken by every committed
 * event on ctx.events, and swept periodically for other processes' events), and the pruning.
 * `svc serve` calls it through registerJobs; tests call it directly. Registering twice is a no-op.
 */
export function registerWebhookJobs(ctx: Context): void {
  if (registered.has(ctx.scheduler)) return;
  registered.add(ctx.scheduler);
  ctx.scheduler.register(DELIVER_JOB, (job, signal) => attemptDelivery(ctx, job, signal));
  ctx.scheduler.every(FANOUT_JOB, FANOUT_SWEEP_MS, () => {
    fanOut(ctx);
    persistPosition(ctx);
  });
  ctx.scheduler.every(PRUNE_JOB, HOUR_MS, () => void pruneDeliveries(ctx));
  // Many events committed in one tick are fanned out together, right after it: when one of them
  // is an account's that has a live webhook. The others wait for the periodic sweep, which finds
  // nothing to deliver for them anyway (live-accounts.ts).
  let queued = false;
  ctx.events.subscribe((event) => {
    if (queued || event.account_id === null || !accountsWithWebhooks(ctx).has(event.account_id)) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      try {
        fanOut(ctx);
      } catch (err) {
        ctx.log.warn("webhook fan-out failed; the periodic sweep will pick the events up", { error: err instanceof Error ? err.message : String(err) });
      }
    });
  });
}
