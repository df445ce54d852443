/**
 * Prepaid credit and what funds it: balance and ledger, USDT deposits, x402 payments, plans and
 * subscriptions, balance alerts (/v1/billing/*; `svc chains …`).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { alertRoutes } from "./alert-routes.ts";
import { registerBalanceAlerts } from "./alerts.ts";
import { chainsGroup } from "./cli-chains.ts";
import { billingConfig } from "./config.ts";
import { depositRoutes } from "./deposit-routes.ts";
import { registerDepositJobs } from "./deposits.ts";
import { planRoutes } from "./plan-routes.ts";
import { billingRoutes } from "./routes.ts";
import { registerSubscriptionJobs } from "./subscriptions.ts";

export const billingModule = defineModule({
  name: "billing",
  config: billingConfig,
  // In every context, not only svc serve: balances also fall in the CLI (svc admin credit debit), and balance_low must fire for every debit.
  wire: registerBalanceAlerts,
  routes: (ctx) => [depositRoutes(ctx), planRoutes(ctx), alertRoutes(ctx), billingRoutes(ctx)],
  jobs(ctx) {
    registerSubscriptionJobs(ctx);
    // Pending USDT deposits are re-checked every 30 s and credited once they have their confirmations.
    registerDepositJobs(ctx);
  },
  cli: [chainsGroup],
});
