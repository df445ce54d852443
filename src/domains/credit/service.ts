/** An API key's view of its account's credit and its own monthly position (GET /v1/credit; the MCP credit_balance tool). */
import { monthOf } from "../../core/meter.ts";
import type { Context } from "../../context.ts";
import { type ApiKeyPrincipal, getKeyRow, keyView } from "../keys/index.ts";

export function creditPosition(ctx: Context, principal: Pick<ApiKeyPrincipal, "accountId" | "keyId">) {
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
}
