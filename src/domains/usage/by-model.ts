/**
 * An account's inference usage per model over a period (half-open, like every period here):
 * calls, spend and the tokens billed, from the usage events settle wrote. The autopilot reads
 * this to see what the account spends on which model; only settled calls are here (a call the
 * upstream failed bills nothing and leaves no usage event).
 */
import type { Context } from "../../context.ts";
import type { Period } from "./period.ts";

export interface ModelUsage {
  /** The usage event's resource: the catalogue model id the call was metered under. */
  model: string;
  calls: number;
  spend_micro_usd: number;
  input_tokens: number;
  output_tokens: number;
}

/** Inference usage of the account in [from, to), per model, highest spend first. */
export function inferenceUsageByModel(ctx: Context, accountId: string, period: Period): ModelUsage[] {
  return ctx.db
    .query<ModelUsage, [string, number, number]>(
      `SELECT resource AS model, count(*) AS calls, sum(cost_micro_usd) AS spend_micro_usd,
              coalesce(sum(json_extract(units, '$.input_tokens')), 0) AS input_tokens,
              coalesce(sum(json_extract(units, '$.output_tokens')), 0) AS output_tokens
       FROM usage_events
       WHERE account_id = ? AND kind = 'inference' AND resource IS NOT NULL AND created_at >= ? AND created_at < ?
       GROUP BY resource ORDER BY spend_micro_usd DESC, resource`,
    )
    .all(accountId, period.from, period.to);
}
