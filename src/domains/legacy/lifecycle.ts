/**
 * The timed moves of a legacy plan (docs/legacy.md "States"), made by the sweep (scheduler job
 * legacy.sweep, every minute) and, for a release the last needed confirmation unblocks, by that
 * attestation itself:
 *
 *   active  → warning   the deadline (last check-in + checkin_interval_s) has passed
 *   warning → released  the warning (warning_period_s from when it started) is over, and
 *                       - no attesters: at once (reason timer), or
 *                       - attesters_required confirmations are in (reason attesters), or
 *                       - the hold ran out: max_hold_s past the warning's end (reason hold_expired)
 *
 * The warning period counts from when the warning started, not from the deadline, so a sweep
 * that ran late (svc was down) still gives the owner the whole warning. Attesters never start
 * or speed up anything: they can only hold a release back (the spec's "a brake, not the timer").
 * Each move writes the row, its history line and its events in one transaction; a plan is read
 * again inside it, so a check-in or cancel racing the sweep wins or loses whole.
 */
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { findAccountByWallet } from "../auth/index.ts";
import { SWEEP_BATCH } from "./limits.ts";
import { attestersOf, beneficiariesOf, confirmationsOf, holdUntil, planById, type PlanRow, recordHistory, type ReleaseReason, warningEndsAt } from "./store.ts";

export const SWEEP_JOB = "legacy.sweep";

/** Accounts holding these wallets now (a wallet not linked to any account is told nothing). */
function accountsOf(ctx: Context, wallets: (string | null)[], except: string): string[] {
  const found = wallets.flatMap((w) => (w === null ? [] : [findAccountByWallet(ctx, w)]));
  return [...new Set(found.filter((a): a is string => a !== null && a !== except))];
}

function startWarning(ctx: Context, p: PlanRow, now: number): void {
  const endsAt = now + p.warning_period_s * 1000;
  ctx.db.query("UPDATE legacy_plans SET status = 'warning', warning_started_at = ?, next_check_at = ? WHERE id = ?").run(now, endsAt, p.id);
  recordHistory(ctx, p.id, "warning", now, { deadline_at: isoTime(p.deadline_at), warning_ends_at: isoTime(endsAt) });
  const payload = { plan_id: p.id, plan_name: p.name, deadline_at: isoTime(p.deadline_at), warning_ends_at: isoTime(endsAt) };
  ctx.outbox.emit("legacy_plan_warning", p.account_id, { ...payload, role: "owner" });
  for (const accountId of accountsOf(ctx, attestersOf(ctx, p.id), p.account_id)) ctx.outbox.emit("legacy_plan_warning", accountId, { ...payload, role: "attester" });
}

function release(ctx: Context, p: PlanRow, reason: ReleaseReason, now: number): void {
  ctx.db.query("UPDATE legacy_plans SET status = 'released', released_at = ?, release_reason = ?, next_check_at = NULL WHERE id = ?").run(now, reason, p.id);
  recordHistory(ctx, p.id, "released", now, { reason });
  const payload = { plan_id: p.id, plan_name: p.name, released_at: isoTime(now) };
  ctx.outbox.emit("legacy_plan_released", p.account_id, { ...payload, role: "owner", reason });
  const wallets = beneficiariesOf(ctx, p.id).map((b) => b.wallet);
  for (const accountId of accountsOf(ctx, wallets, p.account_id)) ctx.outbox.emit("legacy_plan_released", accountId, { ...payload, role: "beneficiary" });
}

/** One move if one is due; false when the plan is where it should be. Inside a transaction. */
function step(ctx: Context, p: PlanRow, now: number): boolean {
  if (p.status === "active" && now >= p.deadline_at) {
    startWarning(ctx, p, now);
    return true;
  }
  if (p.status !== "warning") return false;
  const ends = warningEndsAt(p)!;
  if (now < ends) return false;
  if (p.attesters_required === 0) {
    release(ctx, p, "timer", now);
    return true;
  }
  if (confirmationsOf(ctx, p.id).length >= p.attesters_required) {
    release(ctx, p, "attesters", now);
    return true;
  }
  const hold = holdUntil(p)!;
  if (now >= hold) {
    release(ctx, p, "hold_expired", now);
    return true;
  }
  // Held by the brake: the sweep looks again when the hold runs out (an attestation may release it sooner).
  if (p.next_check_at !== hold) ctx.db.query("UPDATE legacy_plans SET next_check_at = ? WHERE id = ?").run(hold, p.id);
  return false;
}

/**
 * Makes every move due at `now` (at most two: warning, then release). Call inside a
 * transaction; answers the plan as it ends up.
 */
export function advance(ctx: Context, planId: string, now: number): PlanRow | null {
  for (let i = 0; i < 3; i++) {
    const p = planById(ctx, planId);
    if (!p || !step(ctx, p, now)) return p;
  }
  return planById(ctx, planId);
}

/** The sweep: plans whose next timed check has come, each moved in its own transaction. Bounded per run. */
export function sweepPlans(ctx: Context, limit = SWEEP_BATCH): number {
  const now = ctx.clock.now();
  const due = ctx.db
    .query<{ id: string }, [number, number]>("SELECT id FROM legacy_plans WHERE next_check_at IS NOT NULL AND next_check_at <= ? ORDER BY next_check_at LIMIT ?")
    .all(now, limit);
  for (const { id } of due) ctx.tx.run(() => advance(ctx, id, now));
  return due.length;
}
