/**
 * GET /v1/billing/methods (public) and /v1/billing/deposits (session): how to pay, and the
 * account's USDT deposits. The rules live in deposits.ts; docs/deposits.md is the reference.
 */
import { Elysia } from "elysia";
import { bareArray } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { errors } from "../../core/schemas.ts";
import { guards } from "../../guards.ts";
import { claimDeposit, listDeposits, refreshDeposits } from "./deposits.ts";
import { billingMethods } from "./methods.ts";
import * as M from "./models.ts";

const tags = ["billing"];
const session = [{ session: [] }];

export function depositRoutes(ctx: Context) {
  const methods = new Elysia({ prefix: "/v1/billing" })
    .use(guards.public(ctx))
    .get("/methods", () => billingMethods(ctx.config), {
      response: { 200: M.BillingMethods },
      detail: { summary: "Treasury address, supported chains, USDT contracts and required confirmations", tags },
    });

  const deposits = new Elysia({ prefix: "/v1/billing/deposits" })
    .use(guards.session(ctx))
    .post(
      "",
      async ({ principal, body, set }) => {
        const { deposits, created } = await claimDeposit(ctx, { accountId: principal.accountId, chain: body.chain, txHash: body.tx_hash });
        set.status = created ? 201 : 200;
        // A transaction paying the treasury several times is several deposits; all are
        // recorded (GET lists them) and the first is the answer.
        return deposits[0]!;
      },
      {
        body: M.DepositBody,
        // 404 transaction_not_found, 409 transaction_not_mined / deposit_already_claimed, 501 no treasury or chain,
        // 502 wrong_chain, 503 chain_unavailable (docs/deposits.md); 400 and 403 are the body route's baseline.
        response: { 200: M.Deposit, 201: M.Deposit, ...errors(404, 409, 501, 502, 503) },
        detail: { summary: "Claim an on-chain USDT transfer to the treasury: 201 recorded (pending or credited), 200 already recorded", tags, security: session },
      },
    )
    .get("", ({ principal }) => bareArray(listDeposits(ctx, principal.accountId)), {
      response: { 200: M.Deposits },
      detail: { summary: "The account's deposits, newest first, at most 100 (bare array)", tags, security: session },
    })
    // A chain's refusal is noted on the deposit (last_error), never answered.
    .post("/refresh", ({ principal }) => refreshDeposits(ctx, principal.accountId), {
      response: { 200: M.Refresh },
      detail: { summary: "Re-check the account's pending deposits now: {checked, credited, deposits}", tags, security: session },
    });

  return new Elysia().use(methods).use(deposits);
}
