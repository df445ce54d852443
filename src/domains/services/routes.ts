/**
 * /v1/services (spec §4.4 Services line with a session; §4.1 the public marketplace). Thin: each
 * route validates, calls one service function and shapes the answer. Rules: catalog.ts and
 * invoke.ts; docs: docs/services.md.
 *
 *   POST   /v1/services                         {slug, name, description, price_micro_usd, payee, upstream_url | handler, listed?} → 201
 *   GET    /v1/services                         {services}: the account's live services
 *   PATCH  /v1/services/manage/:slug            {price_micro_usd?, description?, listed?, enabled?}
 *   DELETE /v1/services/manage/:slug            the slug stays taken forever
 *   GET    /v1/services/manage/:slug/calls      {calls, service_id, slug}: newest first, at most 100
 *   GET    /v1/services/directory               {services, ordering, settlement}: listed services, at most 200
 *   GET    /v1/services/:slug                   price, payee, x402 accepts
 *   POST   /v1/services/:slug/invoke            402 with terms; with X-PAYMENT, the answer and its signed receipt
 *
 * "directory" and "manage" are literal segments (spec §9.3): Elysia's router prefers them to
 * /:slug, and no service may take them as its slug.
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { createService, deleteService, directory, listServices, patchService, publicService, serviceCalls } from "./catalog.ts";
import { invokeService } from "./invoke.ts";
import * as M from "./models.ts";

const tags = ["services"];
const security = [{ session: [] }];

export function servicesRoutes(ctx: Context) {
  const manage = new Elysia({ prefix: "/v1/services" })
    .use(guards.session(ctx))
    .post(
      "",
      async ({ principal, body, set }) => {
        const service = await createService(ctx, principal.accountId, {
          slug: body.slug,
          name: body.name,
          description: body.description,
          priceMicroUsd: body.price_micro_usd,
          payee: body.payee,
          upstreamUrl: body.upstream_url ?? null,
          handler: body.handler ?? null,
          listed: body.listed ?? true,
        });
        set.status = 201;
        return service;
      },
      {
        body: M.CreateBody,
        // 403 payee_not_linked; 404 model_not_found (handler); 409 slug_taken, service_limit_reached; 501 no chain configured.
        response: { 201: M.Service, ...errors(404, 409, 501) },
        detail: {
          summary: "Offer a service for sale per call over x402, paid by buyers straight to one of the account's wallets",
          description: "Exactly one of upstream_url (calls are forwarded there) and handler (a chat model or engine/<slug> answers them). See docs/services.md.",
          tags,
          security,
        },
      },
    )
    .get("", ({ principal }) => namedList("services", listServices(ctx, principal.accountId)), {
      response: { 200: M.ServiceList },
      detail: { summary: "The account's services (deleted ones are gone from the list; their slugs stay taken)", tags, security },
    })
    .patch("/manage/:slug", ({ principal, params, body }) => patchService(ctx, principal.accountId, params.slug, { priceMicroUsd: body.price_micro_usd, description: body.description, listed: body.listed, enabled: body.enabled }), {
      params: M.SlugParams,
      body: M.PatchBody,
      response: { 200: M.Service },
      detail: { summary: "Change a service's price, description, listing or enabled state (another account's slug answers 404)", tags, security },
    })
    .delete("/manage/:slug", ({ principal, params }) => deleteService(ctx, principal.accountId, params.slug), {
      params: M.SlugParams,
      response: { 200: M.Service },
      detail: { summary: "Delete a service: buyers get 404 from now on, and its slug is never given to anyone again", tags, security },
    })
    .get("/manage/:slug/calls", ({ principal, params }) => serviceCalls(ctx, principal.accountId, params.slug), {
      params: M.SlugParams,
      response: { 200: M.CallList },
      detail: { summary: "The service's paid calls, newest first, at most 100 ({calls, service_id, slug}): payments, outcomes, receipts; never content", tags, security },
    });

  const open = new Elysia({ prefix: "/v1/services" })
    .use(guards.public(ctx))
    .get("/directory", () => directory(ctx), {
      response: { 200: M.Directory },
      detail: { summary: "The public directory of listed services, most called first, at most 200 ({services, ordering, settlement})", tags },
    })
    .get("/:slug", ({ params }) => publicService(ctx, params.slug), {
      params: M.SlugParams,
      response: { 200: M.PublicService },
      detail: { summary: "A service's price, payee and x402 payment options (404 when unknown, disabled or deleted)", tags },
    })
    .post(
      "/:slug/invoke",
      async ({ params, headers, body, set }) => {
        const answer = await invokeService(ctx, params.slug, headers, body as Record<string, unknown>);
        set.status = answer.status;
        Object.assign(set.headers, answer.headers);
        return answer.body;
      },
      {
        params: M.SlugParams,
        body: M.InvokeBody,
        // 402 payment_required / payment_rejected with the terms; 501 no chain configured; 502
        // service_call_failed (payment released) or wrong_chain; 503 chain_unavailable.
        response: { 200: M.Invoked, 402: M.PaymentRequired, ...errors(501, 502, 503) },
        detail: {
          summary: "Call a service: without X-PAYMENT, 402 with x402 terms; with a proof of the buyer's USDT transfer to the seller, the answer and a signed receipt",
          description: "Each transfer pays for one call once; a call that fails releases it for a retry with the same proof. svc never holds the funds. See docs/services.md.",
          tags,
        },
      },
    );

  return [manage, open];
}
