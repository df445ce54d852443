/**
 * /v1/webhooks (session): spec §4.4 plus replay and enable (docs/webhooks.md). The rules live in
 * service.ts and replay.ts; delivery in delivery.ts; the shapes in models.ts.
 */
import { Elysia, t } from "elysia";
import { bareArray } from "../../core/envelopes.ts";
import { invalidField } from "../../core/errors.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { replayMissed } from "./replay.ts";
import { createWebhook, enableWebhook, listDeliveries, listWebhooks, ownWebhook, revokeWebhook, sendTestEvent } from "./service.ts";

const tags = ["webhooks"];
const security = [{ session: [] }];
const doc = (summary: string) => ({ detail: { summary, tags, security } });

export function webhookRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/webhooks" })
    .use(guards.session(ctx))
    .post(
      "",
      async ({ principal, body, set }) => {
        const created = await createWebhook(ctx, { accountId: principal.accountId, url: body.url, events: body.events, description: body.description ?? null });
        set.status = 201;
        return { ...created.view, secret: created.secret };
      },
      {
        body: M.CreateWebhookBody,
        // 409 plan_limit_reached: the plan's webhooks allowance is full.
        response: { 201: M.CreatedWebhook, ...errors(409) },
        ...doc("Create a webhook (its whsec_ signing secret is returned once)"),
      },
    )
    .get("", ({ principal }) => bareArray(listWebhooks(ctx, principal.accountId)), {
      response: { 200: t.Array(M.Webhook, { description: "The account's webhooks, newest first (bare array)" }) },
      ...doc("The account's webhooks, newest first; never a secret (bare array)"),
    })
    .delete("/:id", ({ principal, params }) => revokeWebhook(ctx, principal.accountId, params.id), {
      params: M.WebhookParams,
      response: { 200: M.Webhook },
      ...doc("Revoke a webhook: disabled_at set, webhook_revoked fired; final"),
    })
    .get("/:id/deliveries", ({ principal, params }) => bareArray(listDeliveries(ctx, principal.accountId, params.id)), {
      params: M.WebhookParams,
      response: { 200: t.Array(M.Delivery, { description: "Deliveries, newest event first, at most 50 (bare array)" }) },
      ...doc("The webhook's deliveries, newest event first, at most 50 (bare array)"),
    })
    .post(
      "/:id/test",
      ({ principal, params, set }) => {
        set.status = 202;
        return sendTestEvent(ctx, principal.accountId, params.id);
      },
      {
        params: M.WebhookParams,
        // 409 webhook_revoked / webhook_disabled: only an active webhook receives events.
        response: { 202: M.TestEvent, ...errors(409) },
        ...doc("Send a synthetic webhook_test event through the outbox and dispatcher"),
      },
    )
    .post(
      "/:id/replay",
      ({ principal, params, body, set }) => {
        const row = ownWebhook(ctx, principal.accountId, params.id);
        const since = Date.parse(body.since);
        if (Number.isNaN(since)) throw invalidField("since", "must be an RFC 3339 date-time");
        set.status = 202;
        return replayMissed(ctx, row, since);
      },
      {
        params: M.WebhookParams,
        body: M.ReplayBody,
        response: { 202: M.ReplayResult, ...errors(409) },
        ...doc("Queue again the events a webhook missed since a time (failed, skipped while disabled, never queued)"),
      },
    )
    .post("/:id/enable", ({ principal, params }) => enableWebhook(ctx, principal.accountId, params.id), {
      params: M.WebhookParams,
      // 409 webhook_revoked: a deleted webhook stays revoked.
      response: { 200: M.Webhook, ...errors(409) },
      ...doc("Re-enable a webhook the failure rule disabled (a revoked one stays revoked)"),
    });
}
