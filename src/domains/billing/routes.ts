/** /v1/billing/balance and /v1/billing/ledger: the account's money, for its people (session). */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { ledgerPage } from "./ledger.ts";
import * as M from "./models.ts";

const tags = ["billing"];
const security = [{ session: [] }];

export function billingRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/billing" })
    .use(guards.session(ctx))
    .get("/balance", ({ principal }) => ctx.ledger.balance(principal.accountId), {
      response: { 200: M.Balance },
      detail: { summary: "Balance, held and spendable credit (micro-USD)", tags, security },
    })
    .get("/ledger", ({ principal, query }) => ledgerPage(ctx, principal.accountId, query), {
      query: M.LedgerQuery,
      response: { 200: M.LedgerPage },
      detail: { summary: "Ledger entries, newest first: {entries, next_cursor, has_more}", tags, security },
    });
}
