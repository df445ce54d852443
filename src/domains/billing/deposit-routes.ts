/**
 * GET /v1/billing/methods (public) and /v1/billing/deposits (session): how to pay, and the
 * account's USDT deposits. The rules live in deposits.ts; docs/deposits.md is the reference.
 */
import { Elysia, t } from "elysia";
import { bareArray } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { claimDeposit, listDeposits, refreshDeposits } from "./deposits.ts";
import { billingMethods } from "./methods.ts";
import { TX_HASH_PATTERN } from "./transfer-check.ts";

const tags = ["billing"];
const session = [{ session: [] }];

export function depositRoutes(ctx: Context) {
  const methods = new Elysia({ prefix: "/v1/billing" })
    .use(guards.public(ctx))
    .get("/methods", () => billingMethods(ctx.config), {
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
        body: t.Object(
          {
            chain: t.String({ minLength: 1, maxLength: 32, description: "a chain name from GET /v1/billing/methods" }),
            tx_hash: t.String({ pattern: TX_HASH_PATTERN, error: "must be a 0x-prefixed 32-byte hex transaction hash", description: "the transaction that transferred USDT to the treasury" }),
          },
          { additionalProperties: false },
        ),
        detail: { summary: "Claim an on-chain USDT transfer to the treasury: 201 recorded (pending or credited), 200 already recorded", tags, security: session },
      },
    )
    .get("", ({ principal }) => bareArray(listDeposits(ctx, principal.accountId)), {
      detail: { summary: "The account's deposits, newest first, at most 100 (bare array)", tags, security: session },
    })
    .post("/refresh", ({ principal }) => refreshDeposits(ctx, principal.accountId), {
      detail: { summary: "Re-check the account's pending deposits now: {checked, credited, deposits}", tags, security: session },
    });

  return new Elysia().use(methods).use(deposits);
}
