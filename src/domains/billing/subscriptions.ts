/**
 * Subscriptions: which plan an account is on, period by period (docs/plans.md).
 *
 * A term starts when an account subscribes (or switches) to a plan other than the default:
 * the first monthly fee is debited through the ledger in the same transaction that records
 * the term, so either both happen or neither (402 insufficient_credit, nothing recorded).
 * Switching mid-period ends the old term now (no refund, no pro-rating) and starts a new
 * full period at the new plan's full fee. Renewal is a scheduler job at each period's end;
 * it charges the plan's current catalogue fee, or lapses the account to the default plan
 * when the balance cannot cover it (one attempt, recorded as end_reason insufficient_credit).
 *
 * A renewal job that runs twice charges once: the job names the period end it renews, the
 * term's current_period_end moves on after the charge, and subscription_charges is UNIQUE per
 * (term, period_start).
 */
import { isoTime } from "../../core/clock.ts";
import { conflict, invalidField } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { InsufficientCredit } from "../../core/ledger.ts";
import type { Context } from "../../context.ts";
import { defaultPlan, findPlan, type Plan, planView, type PlanView } from "./plans.ts";

export const RENEWAL_JOB = "billing.subscription_renewal";

export type EndReason = "cancelled" | "insufficient_credit" | "switched" | "plan_withdrawn";

interface SubscriptionRow {
  id: string;
  account_id: string;
  plan_id: string;
  status: "active" | "cancelled" | "ended";
  started_at: number;
  periods: number;
  current_period_start: number;
  current_period_end: number;
  cancelled_at: number | null;
  ended_at: number | null;
  end_reason: EndReason | null;
  created_at: number;
}

interface ChargeRow {
  id: string;
  subscription_id: string;
  account_id: string;
  plan_id: string;
  period_start: number;
  period_end: number;
  fee_micro_usd: number;
  ledger_entry_id: string | null;
  created_at: number;
}

export interface ChargeView {
  period_start: string;
  period_end: string;
  fee_micro_usd: number;
  ledger_entry_id: string | null;
  charged_at: string;
}

export interface SubscriptionView {
  /** The term's id; null when the account is on the default plan. */
  id: string | null;
  /** False when on the default plan (never subscribed, or the last term ended). */
  subscribed: boolean;
  plan_id: string | null;
  /** The plan as the catalogue has it now; null when it was withdrawn from the catalogue (or no default exists). */
  plan: PlanView | null;
  /** active; cancelled (runs to current_period_end, then the default plan); none: no plan at all (no zero-fee plan configured). */
  status: "active" | "cancelled" | "none";
  started_at: string | null;
  current_period_start: string | null;
  current_period_end: string | null;
  /** Whether the next fee will be charged at current_period_end to continue the plan. */
  renews: boolean;
  /** What renewal will charge (the plan's current catalogue fee); null when it will not renew. */
  next_fee_micro_usd: number | null;
  cancelled_at: string | null;
  last_charge: ChargeView | null;
  /** The most recent term that ended, and why. */
  previous: { id: string; plan_id: string; ended_at: string; reason: EndReason } | null;
}

/** Calendar months in UTC; a day the target month lacks clamps to its last day (Jan 31 + 1 month → Feb 28/29). */
export function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

/** One renewal job per account and period end: scheduling it again is a no-op. */
export const renewalKey = (accountId: string, periodEnd: number) => `${RENEWAL_JOB}:${accountId}:${periodEnd}`;

const liveRow = (ctx: Context, accountId: string): SubscriptionRow | null =>
  ctx.db.query<SubscriptionRow, [string]>("SELECT * FROM subscriptions WHERE account_id = ? AND status IN ('active', 'cancelled')").get(accountId);

/** A cancelled term is over at its period end, even before its job has recorded that. */
const inForce = (row: SubscriptionRow | null, now: number): SubscriptionRow | null =>
  row && !(row.status === "cancelled" && row.current_period_end <= now) ? row : null;

/**
 * The plan whose limits apply to the account now: its term's plan, else the default plan.
 * A term whose plan was withdrawn from the catalogue gets the default plan's limits (the
 * withdrawn plan's are no longer known); it ends at its next renewal.
 */
export function currentPlan(ctx: Context, accountId: string): Plan | null {
  const term = inForce(liveRow(ctx, accountId), ctx.clock.now());
  return (term && findPlan(ctx, term.plan_id)) ?? defaultPlan(ctx);
}

function endTerm(ctx: Context, row: SubscriptionRow, reason: EndReason, at: number): void {
  ctx.db.query("UPDATE subscriptions SET status = 'ended', ended_at = ?, end_reason = ? WHERE id = ?").run(at, reason, row.id);
  // Ending early (a switch) leaves the renewal job pointless; it would find the term ended anyway.
  ctx.scheduler.cancel(renewalKey(row.account_id, row.current_period_end));
}

/** In a write transaction: the live term, after recording the end of a cancelled one whose period is over. */
function liveTerm(ctx: Context, accountId: string, now: number): SubscriptionRow | null {
  const row = liveRow(ctx, accountId);
  if (row && !inForce(row, now)) {
    endTerm(ctx, row, "cancelled", row.current_period_end);
    return null;
  }
  return row;
}

function scheduleRenewal(ctx: Context, row: Pick<SubscriptionRow, "id" | "account_id">, periodEnd: number): void {
  ctx.scheduler.schedule(RENEWAL_JOB, { subscription_id: row.id, period_end: periodEnd }, { runAt: periodEnd, uniqueKey: renewalKey(row.account_id, periodEnd) });
}

/** Debits the plan's fee (throws InsufficientCredit when spendable credit is short) and records the period it paid for. */
function charge(ctx: Context, row: Pick<SubscriptionRow, "id" | "account_id">, plan: Plan, start: number, end: number): ChargeRow {
  const fee = plan.monthly_fee_micro_usd;
  const entry = fee > 0 ? ctx.ledger.debit(row.account_id, fee, { type: "subscription", id: row.id, memo: `plan ${plan.id} ${isoTime(start)}/${isoTime(end)}` }) : null;
  return ctx.db
    .query<ChargeRow, (string | number | null)[]>(
      `INSERT INTO subscription_charges (id, subscription_id, account_id, plan_id, period_start, period_end, fee_micro_usd, ledger_entry_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(newId("sch"), row.id, row.account_id, plan.id, start, end, fee, entry?.id ?? null, ctx.clock.now())!;
}

/**
 * Subscribes the account to `planId`, or switches to it. Idempotent for the plan already in
 * force (no second charge); for a cancelled term of that plan it resumes renewal instead.
 * Choosing the default plan ends the current term now.
 */
export function subscribe(ctx: Context, accountId: string, planId: string): SubscriptionView {
  const plan = findPlan(ctx, planId);
  if (!plan) throw invalidField("plan", `unknown plan "${planId}"; GET /v1/billing/plans lists the plans`);
  ctx.tx.run(() => {
    const now = ctx.clock.now();
    const live = liveTerm(ctx, accountId, now);
    if (live?.plan_id === plan.id) {
      if (live.status === "cancelled") {
        ctx.db.query("UPDATE subscriptions SET status = 'active', cancelled_at = NULL WHERE id = ?").run(live.id);
        scheduleRenewal(ctx, live, live.current_period_end);
      }
      return;
    }
    if (live) endTerm(ctx, live, "switched", now);
    if (plan.id === defaultPlan(ctx)?.id) return;
    const end = addMonths(now, 1);
    const row = ctx.db
      .query<SubscriptionRow, [string, string, string, number, number, number, number]>(
        `INSERT INTO subscriptions (id, account_id, plan_id, status, started_at, periods, current_period_start, current_period_end, created_at)
         VALUES (?, ?, ?, 'active', ?, 1, ?, ?, ?) RETURNING *`,
      )
      .get(newId("sub"), accountId, plan.id, now, now, end, now)!;
    charge(ctx, row, plan, now, end);
    scheduleRenewal(ctx, row, end);
  });
  return getSubscription(ctx, accountId);
}

/** Stops renewal: the term stays in force until its period ends, then the account is on the default plan. */
export function cancelSubscription(ctx: Context, accountId: string): SubscriptionView {
  ctx.tx.run(() => {
    const now = ctx.clock.now();
    const live = liveTerm(ctx, accountId, now);
    if (!live) throw conflict("no_subscription", "the account has no subscription to cancel (it is on the default plan)");
    if (live.status === "active") ctx.db.query("UPDATE subscriptions SET status = 'cancelled', cancelled_at = ? WHERE id = ?").run(now, live.id);
  });
  return getSubscription(ctx, accountId);
}

export type RenewalOutcome = "renewed" | "ended" | "lapsed" | "skipped";

/**
 * The renewal job's work for the period ending at `periodEnd`, in one transaction. A job for a
 * period already renewed, or for a term switched away from or ended, does nothing.
 */
export function renewSubscription(ctx: Context, subscriptionId: string, periodEnd: number): RenewalOutcome {
  return ctx.tx.run((): RenewalOutcome => {
    const row = ctx.db.query<SubscriptionRow, [string]>("SELECT * FROM subscriptions WHERE id = ?").get(subscriptionId);
    if (!row || row.status === "ended" || row.current_period_end !== periodEnd) return "skipped";
    const now = ctx.clock.now();
    if (row.status === "cancelled") {
      endTerm(ctx, row, "cancelled", row.current_period_end);
      return "ended";
    }
    const plan = findPlan(ctx, row.plan_id);
    if (!plan) {
      endTerm(ctx, row, "plan_withdrawn", now);
      return "ended";
    }
    // The new period is the one containing now: months that passed entirely while svc was
    // down are not charged (the account could not have used them).
    let k = row.periods + 1;
    while (addMonths(row.started_at, k) <= now) k++;
    const start = addMonths(row.started_at, k - 1);
    const end = addMonths(row.started_at, k);
    if (ctx.db.query("SELECT 1 FROM subscription_charges WHERE subscription_id = ? AND period_start = ?").get(row.id, start)) return "skipped";
    try {
      charge(ctx, row, plan, start, end);
    } catch (err) {
      if (!(err instanceof InsufficientCredit)) throw err;
      // One attempt, no retries: the account drops to the default plan and may subscribe again after a deposit.
      endTerm(ctx, row, "insufficient_credit", now);
      ctx.log.info("subscription lapsed: the renewal fee was not covered", { account_id: row.account_id, subscription_id: row.id, plan_id: plan.id, fee_micro_usd: plan.monthly_fee_micro_usd });
      return "lapsed";
    }
    ctx.db.query("UPDATE subscriptions SET periods = ?, current_period_start = ?, current_period_end = ? WHERE id = ?").run(k, start, end, row.id);
    scheduleRenewal(ctx, row, end);
    return "renewed";
  });
}

export function registerSubscriptionJobs(ctx: Context): void {
  ctx.scheduler.register(RENEWAL_JOB, (job) => {
    renewSubscription(ctx, String(job.payload.subscription_id), Number(job.payload.period_end));
  });
}

const chargeView = (c: ChargeRow): ChargeView => ({
  period_start: isoTime(c.period_start),
  period_end: isoTime(c.period_end),
  fee_micro_usd: c.fee_micro_usd,
  ledger_entry_id: c.ledger_entry_id,
  charged_at: isoTime(c.created_at),
});

export function getSubscription(ctx: Context, accountId: string): SubscriptionView {
  const now = ctx.clock.now();
  const live = liveRow(ctx, accountId);
  const term = inForce(live, now);
  const ended =
    live && !term
      ? { id: live.id, plan_id: live.plan_id, ended_at: live.current_period_end, end_reason: "cancelled" as EndReason }
      : ctx.db
          .query<{ id: string; plan_id: string; ended_at: number; end_reason: EndReason }, [string]>(
            "SELECT id, plan_id, ended_at, end_reason FROM subscriptions WHERE account_id = ? AND status = 'ended' ORDER BY ended_at DESC, rowid DESC LIMIT 1",
          )
          .get(accountId);
  const previous = ended ? { id: ended.id, plan_id: ended.plan_id, ended_at: isoTime(ended.ended_at), reason: ended.end_reason } : null;

  if (!term) {
    const plan = defaultPlan(ctx);
    return {
      id: null,
      subscribed: false,
      plan_id: plan?.id ?? null,
      plan: plan ? planView(plan) : null,
      status: plan ? "active" : "none",
      started_at: null,
      current_period_start: null,
      current_period_end: null,
      renews: false,
      next_fee_micro_usd: null,
      cancelled_at: null,
      last_charge: null,
      previous,
    };
  }
  const plan = findPlan(ctx, term.plan_id);
  const renews = term.status === "active" && plan !== null;
  const last = ctx.db.query<ChargeRow, [string]>("SELECT * FROM subscription_charges WHERE subscription_id = ? ORDER BY period_start DESC LIMIT 1").get(term.id);
  return {
    id: term.id,
    subscribed: true,
    plan_id: term.plan_id,
    plan: plan ? planView(plan) : null,
    status: term.status as "active" | "cancelled",
    started_at: isoTime(term.started_at),
    current_period_start: isoTime(term.current_period_start),
    current_period_end: isoTime(term.current_period_end),
    renews,
    next_fee_micro_usd: renews ? plan!.monthly_fee_micro_usd : null,
    cancelled_at: term.cancelled_at === null ? null : isoTime(term.cancelled_at),
    last_charge: last ? chargeView(last) : null,
    previous,
  };
}
