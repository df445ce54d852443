/**
 * set_key_cap: an active standard key with no monthly cap that spent in the months the period
 * touches. The proposed cap is the highest of those months' spend × 3/2, rounded up to a whole
 * cent: room for a busier month, a stop for a runaway one. Spend is the key's subtree spend
 * per UTC month, the figure the meter checks a monthly cap against. Mandate and ghost keys
 * carry their own budgets, and a delegated key's cap is bounded by its parent's, so only
 * standard keys are looked at.
 */
import { conflict } from "../../core/errors.ts";
import { monthOf } from "../../core/meter.ts";
import { MAX_MICRO_USD } from "../../core/money.ts";
import type { Context } from "../../context.ts";
import { keyRowsOf, keyView, listKeys, setKeyMonthlyCap } from "../keys/index.ts";
import type { Period } from "../usage/index.ts";
import { CAP_HEADROOM, CENT_MICRO_USD } from "./limits.ts";
import type { Applied, Draft, ProposalRow } from "./store.ts";

/** The UTC months (YYYY-MM) from the period's first instant to its last. */
export function monthsOf(period: Period): string[] {
  const months: string[] = [];
  const last = monthOf(period.to - 1);
  const d = new Date(period.from);
  let cursor = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  for (let m = monthOf(cursor); m <= last; m = monthOf(cursor)) {
    months.push(m);
    const c = new Date(cursor);
    cursor = Date.UTC(c.getUTCFullYear(), c.getUTCMonth() + 1, 1);
  }
  return months;
}

/** The cap for a month's spend of `highest`: × 3/2, up to a whole cent, at least one cent. */
export function proposedCap(highest: number): number {
  const raw = Math.ceil((highest * CAP_HEADROOM.numerator) / CAP_HEADROOM.denominator);
  return Math.min(MAX_MICRO_USD, Math.max(CENT_MICRO_USD, Math.ceil(raw / CENT_MICRO_USD) * CENT_MICRO_USD));
}

/** Drafts for the account's uncapped keys that spent, and how many keys were looked at. */
export function keyCapDrafts(ctx: Context, accountId: string, period: Period): { drafts: Draft[]; keys: number } {
  const months = monthsOf(period);
  const keys = listKeys(ctx, accountId).filter((k) => k.kind === "standard" && k.status === "active" && k.monthly_cap_micro_usd === null);
  const drafts: Draft[] = [];
  for (const key of keys) {
    const spent = months.map((month) => ({ month, spent_micro_usd: ctx.meter.monthSpend(key.id, month).spent }));
    const highest = Math.max(...spent.map((s) => s.spent_micro_usd));
    if (highest <= 0) continue;
    const cap = proposedCap(highest);
    drafts.push({
      kind: "set_key_cap",
      target: `key:${key.id}`,
      summary: `Cap key ${key.prefix}… at ${cap} micro-USD a month: it has no cap, and its busiest month of the period spent ${highest}`,
      evidence: { key_id: key.id, key_prefix: key.prefix, months: spent, highest_month_micro_usd: highest, regression: false },
      change: { action: "set_key_monthly_cap", key_id: key.id, monthly_cap_micro_usd: cap },
      weight: highest,
    });
  }
  return { drafts, keys: keys.length };
}

/**
 * Adopts a set_key_cap proposal of `row.account_id`: the key must still be active and still
 * uncapped (409 proposal_stale otherwise: someone changed it since), then the keys area sets
 * the cap. Inside the adopting transaction.
 */
export function adoptKeyCap(ctx: Context, row: ProposalRow): Applied {
  const change = JSON.parse(row.change) as { key_id: string; monthly_cap_micro_usd: number };
  const key = keyRowsOf(ctx, row.account_id, [change.key_id])[0];
  const view = key ? keyView(ctx, key) : null;
  if (!view || view.status !== "active") throw conflict("proposal_stale", `the proposal no longer holds: the key is ${view?.status ?? "gone"}; analyze again`);
  if (view.monthly_cap_micro_usd !== null) throw conflict("proposal_stale", "the proposal no longer holds: the key has a monthly cap now; analyze again");
  const { previous } = setKeyMonthlyCap(ctx, row.account_id, change.key_id, change.monthly_cap_micro_usd);
  return { key_id: change.key_id, monthly_cap_micro_usd: change.monthly_cap_micro_usd, previous_monthly_cap_micro_usd: previous };
}
