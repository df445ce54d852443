/**
 * Webhooks (spec §4.4, §3 Webhook rows, §6): creating one (the secret returned once), listing,
 * revoking (DELETE), re-enabling one the failure rule disabled, sending a test event, and the
 * delivery log. Delivery itself is the dispatcher's (delivery.ts); replay is replay.ts.
 *
 * States: active → disabled (5 consecutive events failed every attempt; POST …/enable brings it
 * back) and active|disabled → revoked (DELETE; final: a revoked webhook is never re-enabled,
 * its owner creates a new one). Both moves set disabled_at and fire webhook_revoked once.
 */
import { ApiError, conflict, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { assertWithinPlanLimit } from "../billing/index.ts";
import { parseEventFilter, WEBHOOK_TEST } from "./catalog.ts";
import { sealSecret, newWebhookSecret } from "./signing.ts";
import { resolveTarget, TargetRefused } from "./ssrf.ts";
import { type DeliveryRow, deliveryView, type DeliveryView, type DisabledReason, getWebhookRow, WEBHOOK_ID_PREFIX, type WebhookRow, webhookView, type WebhookView } from "./store.ts";

/** Rows GET /v1/webhooks/:id/deliveries returns (spec §8). */
export const DELIVERIES_CAP = 50;

export interface CreateInput {
  accountId: string;
  url: string;
  events: string[];
  description?: string | null;
}

/** The URL as svc will call it: syntax, then the outbound guard (clear 400s, naming `url`). */
async function checkedUrl(ctx: Context, raw: string): Promise<string> {
  try {
    await resolveTarget(raw, { allowPrivate: ctx.config.webhooks.allow_private });
    return new URL(raw).href;
  } catch (err) {
    if (err instanceof TargetRefused) throw invalidField("url", err.message);
    throw err;
  }
}

/** Creates the webhook and its webhook_created event in one transaction. The secret is in the result and nowhere else. */
export async function createWebhook(ctx: Context, input: CreateInput): Promise<{ view: WebhookView; secret: string }> {
  const events = parseEventFilter(input.events);
  const url = await checkedUrl(ctx, input.url);
  const id = newId(WEBHOOK_ID_PREFIX);
  const secret = newWebhookSecret();
  const sealed = sealSecret(ctx.sealer, id, secret);
  const row = ctx.tx.run(() => {
    // A disabled webhook counts (it can be enabled again); a revoked one does not.
    const held = ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM webhooks WHERE account_id = ? AND disabled_reason IS NOT 'revoked'").get(input.accountId)!.n;
    assertWithinPlanLimit(ctx, input.accountId, "webhooks", held);
    const created = ctx.outbox.emit("webhook_created", input.accountId, { webhook_id: id, events, description: input.description ?? null });
    // after_seq = its own creation event: a webhook receives what happens after it exists.
    return ctx.db
      .query<WebhookRow, [string, string, string, string, string | null, string, number, number]>(
        `INSERT INTO webhooks (id, account_id, url, events, description, secret_sealed, after_seq, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(id, input.accountId, url, JSON.stringify(events), input.description ?? null, sealed, created.seq, ctx.clock.now())!;
  });
  return { view: webhookView(row), secret };
}

/** The account's webhooks, newest first, whatever their state (never a secret). */
export function listWebhooks(ctx: Context, accountId: string): WebhookView[] {
  return ctx.db
    .query<WebhookRow, [string]>("SELECT * FROM webhooks WHERE account_id = ? ORDER BY created_at DESC, rowid DESC")
    .all(accountId)
    .map(webhookView);
}

/** Another account's webhook answers the same 404 as an unknown one. */
export function ownWebhook(ctx: Context, accountId: string, id: string): WebhookRow {
  const row = getWebhookRow(ctx, id);
  if (!row || row.account_id !== accountId) throw notFound("webhook");
  return row;
}

/**
 * Moves an active webhook to disabled or revoked: disabled_at set, its queued deliveries
 * skipped (a replay can bring them back), webhook_revoked fired. Inside a transaction.
 */
export function disableWebhook(ctx: Context, row: WebhookRow, reason: DisabledReason): void {
  const now = ctx.clock.now();
  const changed = ctx.db.query("UPDATE webhooks SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL").run(now, reason, row.id).changes;
  if (!changed) return;
  ctx.db
    .query("UPDATE webhook_deliveries SET status = 'skipped', last_error = ?, next_attempt_at = NULL, updated_at = ? WHERE webhook_id = ? AND status = 'pending'")
    .run(reason === "revoked" ? "webhook revoked" : "webhook disabled", now, row.id);
  ctx.outbox.emit("webhook_revoked", row.account_id, { webhook_id: row.id, reason, consecutive_failures: row.consecutive_failures });
}

/**
 * DELETE: revoked for good. Idempotent. A webhook the failure rule already disabled becomes
 * revoked too (it can no longer be re-enabled); its webhook_revoked already fired.
 */
export function revokeWebhook(ctx: Context, accountId: string, id: string): WebhookView {
  return ctx.tx.run(() => {
    const row = ownWebhook(ctx, accountId, id);
    if (row.disabled_at === null) disableWebhook(ctx, row, "revoked");
    else if (row.disabled_reason === "failing") ctx.db.query("UPDATE webhooks SET disabled_reason = 'revoked' WHERE id = ?").run(row.id);
    return webhookView(getWebhookRow(ctx, row.id)!);
  });
}

/** Re-enables a webhook the failure rule disabled (its counter starts again at 0). Revoked ones stay revoked. */
export function enableWebhook(ctx: Context, accountId: string, id: string): WebhookView {
  return ctx.tx.run(() => {
    const row = ownWebhook(ctx, accountId, id);
    if (row.disabled_reason === "revoked") throw conflict("webhook_revoked", "a deleted webhook stays revoked; create a new one");
    ctx.db.query("UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL, consecutive_failures = 0 WHERE id = ?").run(row.id);
    return webhookView(getWebhookRow(ctx, row.id)!);
  });
}

/** Refuses work on a webhook that is not active (409, with which state it is in). */
export function assertActive(row: WebhookRow, action: string): void {
  if (row.disabled_reason === "revoked") throw conflict("webhook_revoked", `a deleted webhook cannot ${action}`);
  if (row.disabled_reason === "failing") {
    throw new ApiError(409, "webhook_disabled", `the webhook was disabled after repeated failures; enable it first (POST /v1/webhooks/${row.id}/enable, or svc webhooks enable ${row.id}), then ${action}`);
  }
}

/**
 * A synthetic webhook_test event for this one webhook, through the same outbox and dispatcher
 * as every other event (so it proves the whole path, signature included).
 */
export function sendTestEvent(ctx: Context, accountId: string, id: string): { event_id: string; webhook_id: string } {
  return ctx.tx.run(() => {
    const row = ownWebhook(ctx, accountId, id);
    assertActive(row, "receive a test event");
    const event = ctx.outbox.emit(WEBHOOK_TEST, accountId, { webhook_id: row.id, message: "a test event sent with POST /v1/webhooks/:id/test" });
    return { event_id: event.id, webhook_id: row.id };
  });
}

/** The webhook's delivery rows, newest event first, at most DELIVERIES_CAP. */
export function listDeliveries(ctx: Context, accountId: string, id: string): DeliveryView[] {
  const row = ownWebhook(ctx, accountId, id);
  return ctx.db
    .query<DeliveryRow, [string, number]>("SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY event_seq DESC, id DESC LIMIT ?")
    .all(row.id, DELIVERIES_CAP)
    .map(deliveryView);
}
