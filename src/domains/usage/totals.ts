/** An account's metering over its whole history: every usage event settle wrote, and what they cost. */
import type { Context } from "../../context.ts";

export interface UsageTotals {
  events: number;
  cost_micro_usd: number;
}

export function usageTotalsOf(ctx: Context, accountId: string): UsageTotals {
  const r = ctx.db.query<{ events: number; cost: number | null }, [string]>("SELECT count(*) AS events, sum(cost_micro_usd) AS cost FROM usage_events WHERE account_id = ?").get(accountId)!;
  return { events: r.events, cost_micro_usd: r.cost ?? 0 };
}
