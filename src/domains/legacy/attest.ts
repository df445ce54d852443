/**
 * Attesters (spec §3: "attesters count only in warning … a brake, not the timer";
 * docs/legacy.md "Attesters"). An attester is a wallet the owner named; whoever is signed in
 * to svc with that wallet linked acts as it. During a warning an attester confirms that the
 * release may go ahead; a plan with attesters is not released at the warning's end until
 * attesters_required accounts confirmed, or the hold (max_hold_s past the warning's end) ran
 * out. Confirmations count one per account (an account holding two attester wallets still
 * counts once) and a check-in clears them all. The confirmation that completes the count
 * after the warning's end releases the plan at once, in its own transaction.
 */
import { conflict, forbidden, notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { walletAddressesOf } from "../auth/index.ts";
import { advance } from "./lifecycle.ts";
import { LIST_CAP } from "./limits.ts";
import { attestersOf, planById, type PlanRow, plansAttestedBy, recordHistory } from "./store.ts";
import { attestingView, type AttestingView } from "./views.ts";

/** The plan and the caller's attester wallet on it; anything else (unknown, cancelled, not an attester) is "not found". */
function asAttester(ctx: Context, accountId: string, planId: string): { plan: PlanRow; wallet: string } {
  const plan = planById(ctx, planId);
  const mine = new Set(walletAddressesOf(ctx, accountId));
  const wallet = plan && plan.status !== "cancelled" ? attestersOf(ctx, plan.id).find((w) => mine.has(w)) : undefined;
  if (!plan || wallet === undefined) throw notFound("legacy plan");
  return { plan, wallet };
}

export function attest(ctx: Context, accountId: string, planId: string): AttestingView {
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    const { plan, wallet } = asAttester(ctx, accountId, planId);
    if (plan.account_id === accountId) throw forbidden("owner_cannot_attest", "the plan's owner cannot attest to its own plan; check in instead");
    if (plan.status !== "warning") {
      throw conflict("legacy_plan_not_in_warning", `this plan is ${plan.status}: attesters count only while it is in warning`);
    }
    const added = ctx.db
      .query("INSERT OR IGNORE INTO legacy_confirmations (plan_id, account_id, wallet, confirmed_at) VALUES (?, ?, ?, ?)")
      .run(plan.id, accountId, wallet, now).changes;
    if (added) recordHistory(ctx, plan.id, "attested", now, { wallet });
    return attestingView(ctx, advance(ctx, plan.id, now)!, accountId);
  });
}

export function listAttesting(ctx: Context, accountId: string): AttestingView[] {
  return plansAttestedBy(ctx, walletAddressesOf(ctx, accountId), LIST_CAP)
    .filter((p) => p.account_id !== accountId)
    .map((p) => attestingView(ctx, p, accountId));
}
