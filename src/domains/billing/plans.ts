/**
 * The plan catalogue: what the operator configured under plans[] (docs/plans.md). Read from
 * ctx.config on every call rather than cached, so a context whose config is reloaded serves
 * the new catalogue at once.
 *
 * The default plan is the first zero-fee plan in the catalogue: it is what an account that
 * never subscribed (or whose subscription ended) is on. A catalogue without a zero-fee plan
 * has no default, and such accounts are on no plan at all.
 */
import type { Config } from "../../config.ts";
import type { Context } from "../../context.ts";

export type Plan = Config["plans"][number];

/** The public shape of a plan (GET /v1/billing/plans, and inside a subscription). */
export interface PlanView {
  id: string;
  name: string;
  monthly_fee_micro_usd: number;
  retention_days: number;
  limits: Record<string, number>;
  features: string[];
}

/** Picks the published fields, so a field added to the config schema is never exposed by accident. */
export const planView = (p: Plan): PlanView => ({
  id: p.id,
  name: p.name,
  monthly_fee_micro_usd: p.monthly_fee_micro_usd,
  retention_days: p.retention_days,
  limits: { ...p.limits },
  features: [...p.features],
});

export const listPlans = (ctx: Context): Plan[] => ctx.config.plans;

export const findPlan = (ctx: Context, id: string): Plan | null => ctx.config.plans.find((p) => p.id === id) ?? null;

export const defaultPlan = (ctx: Context): Plan | null => ctx.config.plans.find((p) => p.monthly_fee_micro_usd === 0) ?? null;
