/** GET /v1/credit: an agent's view of the money it may spend (API key with billing:read). */
import { Elysia } from "elysia";
import { monthOf } from "../../core/meter.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { getKeyRow, keyView } from "../keys/index.ts";
import * as M from "./models.ts";

export function creditRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1" })
    .use(guards.apiKey(ctx, "billing:read"))
    .get(
      "/credit",
      ({ principal }) => {
        const balance = ctx.ledger.balance(principal.accountId);
        const key = keyView(ctx, getKeyRow(ctx, principal.keyId)!);
        const cap = key.monthly_cap_micro_usd;
        return {
          ...balance,
          key: {
            id: key.id,
            month: monthOf(ctx.clock.now()),
            monthly_cap_micro_usd: cap,
            spent_this_month_micro_usd: key.spent_this_month_micro_usd,
            held_micro_usd: key.held_micro_usd,
            remaining_this_month_micro_usd: cap === null ? null : Math.max(0, cap - key.spent_this_month_micro_usd - key.held_micro_usd),
            frozen: key.status === "frozen",
          },
        };
      },
      {
        // 402 payment_rejected, 502 wrong_chain, 503 chain_unavailable: an x402 proof (X-PAYMENT /
        // PAYMENT-SIGNATURE) is checked by the API-key guard on every API-key route (src/guards.ts).
        response: { 200: M.Credit, ...errors(402, 502, 503) },
        detail: { summary: "Balance, held and spendable credit (micro-USD), and this key's monthly position", tags: ["credit"], security: [{ apiKey: [] }] },
      },
    );
}
