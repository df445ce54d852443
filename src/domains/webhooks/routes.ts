/**
 * /v1/webhooks (session): spec §4.4 plus replay and enable (docs/webhooks.md). The rules live in
 * service.ts and replay.ts; delivery in delivery.ts.
 */
import { Elysia, t } from "elysia";
import { bareArray } from "../../core/envelopes.ts";
import { invalidField } from "../../core/errors.ts";
import { Nullable } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { replayMissed } from "./replay.ts";
import { createWebhook, enableWebhook, listDeliveries, listWebhooks, ownWebhook, revokeWebhook, sendTestEvent } from "./service.ts";
import { MAX_URL_LENGTH } from "./ssrf.ts";

const tags = ["webhooks"];
const security = [{ session: [] }];
const Id = t.Object({ id: t.String() });

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
        body: t.Object(
          {
            url: t.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: "http(s) URL svc POSTs events to; must reach the public internet unless the operator allows private targets" }),
            events: t.Array(t.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 64, description: 'event types from the catalogue (docs/webhooks.md), or ["*"] for all' }),
            description: t.Optional(Nullable(t.String({ maxLength: 200 }))),
          },
          { additionalProperties: false },
        ),
        detail: { summary: "Create a webhook (its whsec_ signing secret is returned once)", tags, security },
      },
    )
    .get("", ({ principal }) => bareArray(listWebhooks(ctx, principal.accountId)), {
      detail: { summary: "The account's webhooks, newest first; never a secret (bare array)", tags, security },
    })
    .delete("/:id", ({ principal, params }) => revokeWebhook(ctx, principal.accountId, params.id), {
      params: Id,
      detail: { summary: "Revoke a webhook: disabled_at set, webhook_revoked fired; final", tags, security },
    })
    .get("/:id/deliveries", ({ principal, params }) => bareArray(listDeliveries(ctx, principal.accountId, params.id)), {
      params: Id,
      detail: { summary: "The webhook's deliveries, newest event first, at most 50 (bare array)", tags, security },
    })
    .post(
      "/:id/test",
      ({ principal, params, set }) => {
        set.status = 202;
        return sendTestEvent(ctx, principal.accountId, params.id);
      },
      { params: Id, detail: { summary: "Send a synthetic webhook_test event through the outbox and dispatcher", tags, security } },
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
        params: Id,
        body: t.Object({ since: t.String({ format: "date-time", description: "queue again what the webhook missed since this time (within the last 30 days)" }) }, { additionalProperties: false }),
        detail: { summary: "Queue again the events a webhook missed since a time (failed, skipped while disabled, never queued)", tags, security },
      },
    )
    .post("/:id/enable", ({ principal, params }) => enableWebhook(ctx, principal.accountId, params.id), {
      params: Id,
      detail: { summary: "Re-enable a webhook the failure rule disabled (a revoked one stays revoked)", tags, security },
    });
}
