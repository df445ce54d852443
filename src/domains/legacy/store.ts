/**
 * The legacy plans' rows and the SQL on them (tables of migrations/0047_legacy.sql), shared by
 * the owner's routes (plans.ts), the lifecycle (lifecycle.ts), attesters (attest.ts) and
 * beneficiaries (claims.ts). Views for responses are in views.ts.
 */
import type { Context } from "../../context.ts";

export type PlanStatus = "active" | "warning" | "released" | "claimed" | "cancelled";
export type ReleaseReason = "timer" | "attesters" | "hold_expired";

export interface PlanRow {
  seq: number;
  id: string;
  account_id: string;
  name: string;
  status: PlanStatus;
  checkin_interval_s: number;
  warning_period_s: number;
  attesters_required: number;
  max_hold_s: number | null;
  last_checkin_at: number;
  deadline_at: number;
  warning_started_at: number | null;
  released_at: number | null;
  release_reason: ReleaseReason | null;
  claimed_at: number | null;
  cancelled_at: number | null;
  object_count: number;
  content_bytes: number;
  content_updated_at: number | null;
  next_check_at: number | null;
  created_at: number;
}

export interface BeneficiaryRow {
  id: string;
  plan_id: string;
  position: number;
  label: string | null;
  wallet: string | null;
  token_sha256: string | null;
  claimed_at: number | null;
  claimed_by_account: string | null;
}

export interface ObjectRow {
  id: string;
  plan_id: string;
  position: number;
  name: string;
  bytes: number;
  sealed: string | null;
}

export interface ConfirmationRow {
  plan_id: string;
  account_id: string;
  wallet: string;
  confirmed_at: number;
}

/** Binds an object's ciphertext to its plan and id: JSON, so no choice of ids can make two AADs equal. */
export const objectAad = (planId: string, objectId: string): string => JSON.stringify(["legacy_objects", planId, objectId]);

/** Plans that still count against legacy.max_active_plans: everything not yet claimed or cancelled. */
export const LIVE_STATUSES: readonly PlanStatus[] = ["active", "warning", "released"];

export const warningEndsAt = (p: PlanRow): number | null => (p.warning_started_at === null ? null : p.warning_started_at + p.warning_period_s * 1000);

/** With attesters, the latest a release waits for their confirmations (counted from the warning's end). */
export function holdUntil(p: PlanRow): number | null {
  const ends = warningEndsAt(p);
  return ends === null || p.attesters_required === 0 || p.max_hold_s === null ? null : ends + p.max_hold_s * 1000;
}

export const planById = (ctx: Context, id: string): PlanRow | null => ctx.db.query<PlanRow, [string]>("SELECT * FROM legacy_plans WHERE id = ?").get(id);

export const plansOf = (ctx: Context, accountId: string, limit: number): PlanRow[] =>
  ctx.db.query<PlanRow, [string, number]>("SELECT * FROM legacy_plans WHERE account_id = ? ORDER BY seq DESC LIMIT ?").all(accountId, limit);

export function liveCount(ctx: Context, accountId: string): number {
  return ctx.db
    .query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM legacy_plans WHERE account_id = ? AND status IN (SELECT value FROM json_each(?))")
    .get(accountId, JSON.stringify(LIVE_STATUSES))!.n;
}

export const beneficiariesOf = (ctx: Context, planId: string): BeneficiaryRow[] =>
  ctx.db.query<BeneficiaryRow, [string]>("SELECT * FROM legacy_beneficiaries WHERE plan_id = ? ORDER BY position").all(planId);

export const beneficiaryByToken = (ctx: Context, tokenSha256: string): BeneficiaryRow | null =>
  ctx.db.query<BeneficiaryRow, [string]>("SELECT * FROM legacy_beneficiaries WHERE token_sha256 = ?").get(tokenSha256);

export const attestersOf = (ctx: Context, planId: string): string[] =>
  ctx.db.query<{ wallet: string }, [string]>("SELECT wallet FROM legacy_attesters WHERE plan_id = ? ORDER BY position").all(planId).map((r) => r.wallet);

export const confirmationsOf = (ctx: Context, planId: string): ConfirmationRow[] =>
  ctx.db.query<ConfirmationRow, [string]>("SELECT * FROM legacy_confirmations WHERE plan_id = ? ORDER BY confirmed_at, wallet").all(planId);

export const objectsOf = (ctx: Context, planId: string): ObjectRow[] =>
  ctx.db.query<ObjectRow, [string]>("SELECT * FROM legacy_objects WHERE plan_id = ? ORDER BY position").all(planId);

/** Plans where one of these wallets is an attester, newest first, cancelled ones left out. */
export function plansAttestedBy(ctx: Context, wallets: string[], limit: number): PlanRow[] {
  if (!wallets.length) return [];
  return ctx.db
    .query<PlanRow, [string, number]>(
      `SELECT * FROM legacy_plans WHERE status <> 'cancelled'
         AND id IN (SELECT plan_id FROM legacy_attesters WHERE wallet IN (SELECT value FROM json_each(?1)))
       ORDER BY seq DESC LIMIT ?2`,
    )
    .all(JSON.stringify(wallets), limit);
}

/**
 * Beneficiary slots the caller stands for: a slot bound to one of the caller's wallets, or one
 * the caller's account opened (with its token). Released or claimed plans only, newest first.
 */
export function claimSlotsOf(ctx: Context, accountId: string, wallets: string[], limit: number): (BeneficiaryRow & { plan_name: string; released_at: number })[] {
  return ctx.db
    .query<BeneficiaryRow & { plan_name: string; released_at: number }, [string, string, number]>(
      `SELECT b.*, p.name AS plan_name, p.released_at AS released_at FROM legacy_beneficiaries b JOIN legacy_plans p ON p.id = b.plan_id
       WHERE p.status IN ('released', 'claimed')
         AND (b.claimed_by_account = ?1 OR b.wallet IN (SELECT value FROM json_each(?2)))
       ORDER BY p.seq DESC, b.position LIMIT ?3`,
    )
    .all(accountId, JSON.stringify(wallets), limit);
}

/** One line of the plan's content-free history. Inside the transaction that made the change. */
export function recordHistory(ctx: Context, planId: string, event: string, at: number, detail: Record<string, unknown> = {}): void {
  ctx.db.query("INSERT INTO legacy_history (plan_id, at, event, detail) VALUES (?, ?, ?, ?)").run(planId, at, event, JSON.stringify(detail));
}

export function historyOf(ctx: Context, planId: string, limit: number): { at: number; event: string; detail: Record<string, unknown> }[] {
  return ctx.db
    .query<{ at: number; event: string; detail: string }, [string, number]>("SELECT at, event, detail FROM legacy_history WHERE plan_id = ? ORDER BY seq DESC LIMIT ?")
    .all(planId, limit)
    .reverse()
    .map((r) => ({ at: r.at, event: r.event, detail: JSON.parse(r.detail) as Record<string, unknown> }));
}
