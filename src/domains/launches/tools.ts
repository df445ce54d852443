/**
 * The tools a launch's locked spec may grant (spec §4.4: 403 tool_not_locked otherwise):
 *
 *   distribute  records a distribution the issuer makes to holders (amount, asset, record date,
 *               memo) as an entry of the public actions log. Only for a spec that declares
 *               passthrough: true (the launch passes income through to holders); otherwise 403
 *               passthrough_not_declared. svc moves no money: the entry is the issuer's public,
 *               hash-chained statement that the distribution was made.
 *   nav         publishes a NAV figure computed from the latest check with figures: reserves per
 *               token, in base units (reserves × 10^decimals ÷ supply, floor; null with no supply).
 */
import { ApiError, conflict } from "../../core/errors.ts";
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { actionView, appendAction } from "./actions.ts";
import { activeLaunch, managedLaunch } from "./service.ts";
import { requireTool } from "./spec.ts";
import { latestCheck } from "./store.ts";

export interface DistributionInput {
  amount_units: string;
  asset: string;
  record_date: string | null;
  memo: string | null;
}

export function recordDistribution(ctx: Context, accountId: string, id: string, input: DistributionInput) {
  const launch = activeLaunch(managedLaunch(ctx, accountId, id));
  const grant = requireTool(launch.spec_canonical, "distribute");
  if (!grant.passthrough) throw new ApiError(403, "passthrough_not_declared", "the launch's locked spec does not declare passthrough: true, so it makes no distributions", { tool: "distribute" });
  return ctx.tx.run(() => {
    const row = appendAction(ctx, launch.id, "distribution", { amount_units: input.amount_units, asset: input.asset, record_date: input.record_date, memo: input.memo });
    return { launch_id: launch.id, slug: launch.slug, action: actionView(row) };
  });
}

export function publishNav(ctx: Context, accountId: string, id: string) {
  const launch = activeLaunch(managedLaunch(ctx, accountId, id));
  requireTool(launch.spec_canonical, "nav");
  const check = latestCheck(ctx, launch.id);
  if (!check || check.reserves_units === null || check.supply_units === null) {
    throw conflict("no_check_figures", `the latest check has no figures (${check ? check.status : "no check yet"}); run a check first (POST /v1/launches/${launch.id}/check)`);
  }
  const reserves = BigInt(check.reserves_units);
  const supply = BigInt(check.supply_units);
  const navPerToken = supply === 0n ? null : ((reserves * 10n ** BigInt(check.decimals)) / supply).toString();
  return ctx.tx.run(() => {
    const row = appendAction(ctx, launch.id, "nav", {
      check_seq: check.seq,
      status: check.status,
      reserves_units: check.reserves_units,
      supply_units: check.supply_units,
      decimals: check.decimals,
      nav_per_token_units: navPerToken,
      rounding: "floor",
      valuation_timestamp: isoTime(check.checked_at),
    });
    return { launch_id: launch.id, slug: launch.slug, action: actionView(row) };
  });
}
