/**
 * Plan limits: a plan's `limits` map (name → maximum) applied to the account on that plan.
 * A name the plan does not list is unlimited. Each limit is enforced by the code that creates
 * what it counts, calling in here; docs/plans.md lists which limits are enforced today.
 *
 *   api_keys   live standard keys (POST /v1/keys, svc keys mint): checked by keys' mintKey
 */
import { ApiError } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { usableStandardKeyCount } from "../keys/index.ts";
import { currentPlan } from "./subscriptions.ts";

/** The account's current plan's maximum for `name`; null when the plan sets none (or the account is on no plan). */
export function planLimit(ctx: Context, accountId: string, name: string): number | null {
  return currentPlan(ctx, accountId)?.limits[name] ?? null;
}

/** Refuses (409 plan_limit_reached) when `inUse` already fills the plan's allowance for `name`. */
export function assertWithinPlanLimit(ctx: Context, accountId: string, name: string, inUse: number): void {
  const plan = currentPlan(ctx, accountId);
  const max = plan?.limits[name];
  if (plan && max !== undefined && inUse >= max) {
    throw new ApiError(409, "plan_limit_reached", `the ${plan.name} plan allows at most ${max} ${name.replaceAll("_", " ")}; cancel one or choose a larger plan`, {
      limit: name,
      max,
      in_use: inUse,
      plan_id: plan.id,
    });
  }
}

/**
 * api_keys counts the standard keys a person minted that can still be used: not revoked, not
 * replaced by rotation, not expired. Delegated, mandate and ghost keys are bounded by their
 * parent, budget and lifetime instead, and a rotation replaces a key rather than adding one.
 * Runs inside mintKey's transaction, so two concurrent mints cannot both take the last slot.
 */
export function assertApiKeyAllowed(ctx: Context, accountId: string): void {
  if (planLimit(ctx, accountId, "api_keys") === null) return;
  assertWithinPlanLimit(ctx, accountId, "api_keys", usableStandardKeyCount(ctx, accountId));
}
