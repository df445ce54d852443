/**
 * /v1/pay (spec §4.3 "Payments and media", API key with the "pay" scope). Thin: each route
 * validates, calls one service function and shapes the answer. Rules: requests.ts and
 * settle.ts; docs: docs/payments.md "Payment requests".
 *
 *   POST /v1/pay/requests              {amount, asset, chain, payee, memo?, expires_at?} → 201, signed request
 *   GET  /v1/pay/requests/:id          the owner's request, with its settlement once settled
 *   POST /v1/pay/requests/:id/settle   {tx_hash} → the request with its signed settlement receipt
 */
import { Elysia } from "elysia";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { instant } from "../../core/instant.ts";
import * as M from "./models.ts";
import { createRequest, getRequest } from "./requests.ts";
import { settleRequest } from "./settle.ts";

const tags = ["pay"];
const security = [{ apiKey: [] }];

export function payRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/pay/requests" })
    .use(guards.apiKey(ctx, "pay"))
    .post(
      "",
      async ({ principal, body, set }) => {
        const request = await createRequest(
          ctx,
          { accountId: principal.accountId, keyId: principal.keyId },
          {
            amountMicroUsd: body.amount,
            asset: body.asset,
            chain: body.chain,
            payee: body.payee,
            memo: body.memo ?? null,
            expiresAt: body.expires_at === undefined ? null : instant("expires_at", body.expires_at),
          },
        );
        set.status = 201;
        return request;
      },
      {
        body: M.CreateBody,
        // 403 payee_not_linked, 429 too_many_open_requests, 501 no chain configured,
        // 502 wrong_chain and 503 chain_unavailable from reading the chain's head.
        response: { 201: M.PaymentRequest, ...errors(429, 501, 502, 503) },
        detail: {
          summary: "Sign a request to be paid an amount of a chain's USDT to one of the account's wallets (scope pay)",
          description: "The answer's `request` is an EIP-191 signed statement of type payment_request, for the payer. See docs/payments.md.",
          tags,
          security,
        },
      },
    )
    .get("/:id", ({ principal, params }) => getRequest(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.PaymentRequest },
      detail: { summary: "One of the account's payment requests, with its settlement once settled (scope pay; another account's id answers 404)", tags, security },
    })
    .post("/:id/settle", async ({ principal, params, body }) => (await settleRequest(ctx, principal.accountId, params.id, body.tx_hash)).request, {
      params: M.Params,
      body: M.SettleBody,
      // 400 transaction_failed; 404 transaction_not_found; 409 request_already_settled,
      // request_expired, transaction_not_mined, not_enough_confirmations, transaction_already_used,
      // chain_not_configured; 422 wrong_token, wrong_payee, amount_too_small, no_matching_transfer,
      // transfer_before_request; 502 wrong_chain; 503 chain_unavailable.
      response: { 200: M.PaymentRequest, ...errors(409, 422, 502, 503) },
      detail: {
        summary: "Settle a payment request with the transaction that paid it; answers a signed settlement receipt (scope pay)",
        description: "The transfer must be the request's token, to its payee, at least its amount, mined after the request, with the chain's confirmations; each transfer settles one request once. Settling again with the same transaction answers the same settlement. See docs/payments.md.",
        tags,
        security,
      },
    });
}
