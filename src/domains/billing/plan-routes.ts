/**
 * /v1/billing/plans (public) and /v1/billing/subscription (session). Thin: schemas check the
 * input, one service call does the work (plans.ts, subscriptions.ts; docs/plans.md).
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { errors } from "../../core/schemas.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { defaultPlan, listPlans, planView } from "./plans.ts";
import { cancelSubscription, getSubscription, subscribe } from "./subscriptions.ts";

const tags = ["billing"];
const session = [{ session: [] }];

export function planRoutes(ctx: Context) {
  // The spec assigns this list no envelope; a named key leaves room for default_plan_id beside it.
  const catalogue = new Elysia({ prefix: "/v1/billing" })
    .use(guards.public(ctx))
    .get("/plans", () => namedList("plans", listPlans(ctx).map(planView), { default_plan_id: defaultPlan(ctx)?.id ?? null }), {
      response: { 200: M.Plans },
      detail: { summary: "The plan catalogue: monthly fee, retention, limits and feature flags of each plan ({plans, default_plan_id})", tags },
    });

  const subscription = new Elysia({ prefix: "/v1/billing/subscription" })
    .use(guards.session(ctx))
    .get("", ({ principal }) => getSubscription(ctx, principal.accountId), {
      response: { 200: M.Subscription },
      detail: { summary: "The account's plan, status, current period, whether it renews and the next fee", tags, security: session },
    })
    .post("", ({ principal, body }) => subscribe(ctx, principal.accountId, body.plan), {
      body: M.SubscribeBody,
      // 402 insufficient_credit (with x402 terms when payments are configured); an unknown plan is the baseline 400.
      response: { 200: M.Subscription, ...errors(402) },
      detail: {
        summary: "Subscribe or switch plans: the monthly fee is debited now (402 insufficient_credit when the balance cannot cover it)",
        tags,
        security: session,
      },
    })
    .post("/cancel", ({ principal }) => cancelSubscription(ctx, principal.accountId), {
      // 409 no_subscription: nothing to cancel (on the default plan).
      response: { 200: M.Subscription, ...errors(409) },
      detail: { summary: "Stop renewal: the plan stays in force until the current period ends", tags, security: session },
    });

  return new Elysia().use(catalogue).use(subscription);
}
