/** /v1/billing/alerts (session): the account's balance_low threshold (alerts.ts, docs/plans.md). */
import { Elysia, t } from "elysia";
import { MicroUsd } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { getAlerts, setAlerts } from "./alerts.ts";

const tags = ["billing"];
const security = [{ session: [] }];

export function alertRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/billing/alerts" })
    .use(guards.session(ctx))
    .get("", ({ principal }) => getAlerts(ctx, principal.accountId), {
      detail: { summary: "The balance_low threshold (own or deployment default) and whether the alert is armed", tags, security },
    })
    .put("", ({ principal, body }) => setAlerts(ctx, principal.accountId, body.balance_low_micro_usd), {
      body: t.Object(
        {
          balance_low_micro_usd: t.Union([MicroUsd(), t.Null()], {
            error: "must be a whole number of micro-USD, 0 or more, or null",
            description: "balance_low fires when a debit takes the balance below this; null: the deployment default; 0: never",
          }),
        },
        { additionalProperties: false },
      ),
      detail: { summary: "Set the balance_low threshold (null returns to the deployment default)", tags, security },
    });
}
