/**
 * /v1/launches public routes (spec §4.1, no credential). Literal segments (/fees, /public, and
 * the session group's /mine) win over /v1/launches/:id (spec §9.3). Thin (docs/launches.md).
 *
 *   GET  /v1/launches                                       {launches}
 *   GET  /v1/launches/fees                                  launch and monthly fees (default 0), check price and cooldown
 *   GET  /v1/launches/public/:slug                          the launch (spec null until reveal_at)
 *   GET  /v1/launches/public/:slug/actions                  ?before_seq=&limit= → {actions, launch_id, slug, next_before_seq}
 *   GET  /v1/launches/public/:slug/attestation              EIP-712 CheckAttestation of the latest check, with stale
 *   GET  /v1/launches/public/:slug/onchain                  totalSupply, decimals, paused, read live; reachable:false when the node is silent
 *   POST /v1/launches/public/:slug/check                    anyone; 429 in the cooldown; 402 with x402 terms where priced
 *   GET  /v1/launches/public/:slug/redemptions              {redemptions}
 *   POST /v1/launches/public/:slug/redemptions              {tx_hash, log_index?} → 201 (200: the same burn again)
 *   GET  /v1/launches/public/:slug/subscription             enabled:false while the rail is off; 404 when nothing is bound
 *   POST /v1/launches/public/:slug/subscription/authorize   {subscriber} → screened, signed (501 while off)
 */
import { Elysia } from "elysia";
import { invalidField } from "../../core/errors.ts";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { PaymentRequired, paymentRequired, paymentResponseHeaders } from "./check-payment.ts";
import * as M from "./models.ts";
import { ACTIONS_LIMIT, actionsOf, attestation, demandCheck } from "./public.ts";
import { listRedemptions, redeem } from "./redemptions.ts";
import { listPublic, publicLaunch, publicView } from "./service.ts";
import { authorizeSubscription, publicSubscription } from "./subscriptions.ts";
import { onchainView } from "./token.ts";

const tags = ["launches"];

function beforeSeq(raw: string | undefined): number | null {
  if (raw === undefined || raw === "") return null;
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw invalidField("before_seq", "must be a positive whole number (a next_before_seq you received)");
  return Number(raw);
}

export function publicLaunchRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/launches" })
    .use(guards.public(ctx))
    .get("", () => namedList("launches", listPublic(ctx)), {
      response: { 200: M.PublicLaunchList },
      detail: { summary: "Every launch, newest first, at most 200 ({launches}); specs shown once revealed", tags },
    })
    .get(
      "/fees",
      () => ({
        launch_fee_micro_usd: ctx.config.launches.launch_fee_micro_usd,
        monthly_fee_micro_usd: ctx.config.launches.monthly_fee_micro_usd,
        public_check_price_micro_usd: ctx.config.launches.public_check_price_micro_usd,
        public_check_cooldown_secs: ctx.config.launches.public_check_cooldown_secs,
      }),
      { response: { 200: M.Fees }, detail: { summary: "The launch and monthly fees (default 0), and the price and cooldown of a demanded check", tags } },
    )
    .get("/public/:slug", ({ params }) => publicView(ctx, publicLaunch(ctx, params.slug)), {
      params: M.SlugParams,
      response: { 200: M.PublicLaunch },
      detail: { summary: "A launch's public record: digest always, spec and spec_canonical from reveal_at on, latest check", tags },
    })
    .get("/public/:slug/actions", ({ params, query }) => actionsOf(ctx, params.slug, beforeSeq(query.before_seq), parseLimit(query.limit, ACTIONS_LIMIT)), {
      params: M.SlugParams,
      query: M.ActionsQuery,
      response: { 200: M.ActionsPage },
      detail: { summary: "The launch's append-only, hash-chained actions log, newest first, paged with before_seq (limit 1-200, default 50)", tags },
    })
    .get("/public/:slug/attestation", ({ params }) => attestation(ctx, params.slug), {
      params: M.SlugParams,
      response: { 200: M.Attestation },
      detail: { summary: "The latest check as an EIP-712 CheckAttestation signed by the service, with a stale flag (404 before the first check)", tags },
    })
    .get("/public/:slug/onchain", async ({ params }) => onchainView(ctx, publicLaunch(ctx, params.slug)), {
      params: M.SlugParams,
      response: { 200: M.Onchain },
      detail: { summary: "The bound token's contract state read live (totalSupply, decimals, paused); a silent node answers reachable:false", tags },
    })
    .post(
      "/public/:slug/check",
      async ({ params, headers, request, set }) => {
        try {
          const { check, payment } = await demandCheck(ctx, params.slug, headers);
          if (payment) Object.assign(set.headers, paymentResponseHeaders(payment));
          const launch = publicLaunch(ctx, params.slug);
          return { launch_id: launch.id, slug: launch.slug, check };
        } catch (err) {
          if (!(err instanceof PaymentRequired)) throw err;
          const terms = paymentRequired(ctx, new URL(request.url).pathname);
          set.status = 402;
          Object.assign(set.headers, terms.headers);
          // The 402's schema is the error body (declared below); Elysia types a handler's return by its 200.
          return terms.body as never;
        }
      },
      {
        params: M.SlugParams,
        // 402 payment_required (with x402 terms) or payment_rejected; 409 launch_retired; 429 check_cooldown; 501 (priced with no treasury);
        // 502 wrong_chain and 503 chain_unavailable while verifying a payment.
        response: { 200: M.CheckResult, ...errors(402, 409, 501, 502, 503) },
        detail: {
          summary: "Demand a check now (anyone): 429 with retry_after_secs inside the cooldown; 402 with x402 terms where a price is set",
          tags,
        },
      },
    )
    .get(
      "/public/:slug/redemptions",
      ({ params }) => {
        const { launch, rows } = listRedemptions(ctx, params.slug);
        return namedList("redemptions", rows, { launch_id: launch.id, slug: launch.slug });
      },
      {
        params: M.SlugParams,
        response: { 200: M.RedemptionList },
        detail: { summary: "The launch's signed redemption receipts, newest first, at most 200 ({redemptions, launch_id, slug})", tags },
      },
    )
    .post(
      "/public/:slug/redemptions",
      async ({ params, body, set }) => {
        const { redemption, created } = await redeem(ctx, params.slug, body);
        set.status = created ? 201 : 200;
        return redemption;
      },
      {
        params: M.SlugParams,
        body: M.RedeemBody,
        // 400 transaction_failed; 404 transaction_not_found; 409 token_not_bound, chain_not_configured, transaction_not_mined, not_enough_confirmations; 422 no_burn; 502 wrong_chain; 503 chain_unavailable.
        response: { 201: M.Redemption, 200: M.Redemption, ...errors(409, 422, 502, 503) },
        detail: { summary: "Turn a burn (a Transfer of the bound token to the zero address) into a signed redemption receipt; idempotent per burn log", tags },
      },
    )
    .get("/public/:slug/subscription", ({ params }) => publicSubscription(ctx, params.slug), {
      params: M.SlugParams,
      response: { 200: M.SubscriptionTerms },
      detail: { summary: "The launch's subscription terms: enabled:false while the rail is off; 404 when none are bound", tags },
    })
    .post("/public/:slug/subscription/authorize", ({ params, body }) => authorizeSubscription(ctx, params.slug, body.subscriber), {
      params: M.SlugParams,
      body: M.AuthorizeBody,
      // 403 subscriber_sanctioned; 409 launch_retired; 501 (rail off); 503 screening_unavailable (fail-closed).
      response: { 200: M.SubscriptionAuthorization, ...errors(409, 501, 503) },
      detail: { summary: "Authorize a subscriber: sanctions-screened, fail-closed, answered with a signed EIP-712 SubscriptionAuthorization (501 while the rail is off)", tags },
    });
}
