/** /v1/billing/alerts (session): the account's balance_low threshold (alerts.ts, docs/plans.md). */
import { Elysia } from "elysia";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { getAlerts, setAlerts } from "./alerts.ts";
import * as M from "./models.ts";

const tags = ["billing"];
const security = [{ session: [] }];

export function alertRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/billing/alerts" })
    .use(guards.session(ctx))
    .get("", ({ principal }) => getAlerts(ctx, principal.accountId), {
      response: { 200: M.Alerts },
      detail: { summary: "The balance_low threshold (own or deployment default) and whether the alert is armed", tags, security },
    })
    .put("", ({ principal, body }) => setAlerts(ctx, principal.accountId, body.balance_low_micro_usd), {
      body: M.AlertsBody,
      response: { 200: M.Alerts },
      detail: { summary: "Set the balance_low threshold (null returns to the deployment default)", tags, security },
    });
}
