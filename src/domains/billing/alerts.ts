/**
 * The balance_low alert (spec §6; docs/plans.md). It fires when a change takes an account's
 * balance from at-or-above its threshold to below it: once per downward crossing. Further
 * falls below the threshold do not fire; the balance rising back to the threshold or above
 * (a deposit, a grant) re-arms it, and the next crossing fires again.
 *
 * Detection runs in the ledger's balance listener, inside the transaction that moved the
 * balance, so the outbox event exists exactly when the debit does (roll the debit back and
 * the event goes with it).
 *
 * "Armed" is not stored: it is balance >= threshold. So a new threshold (or a new deployment
 * default) takes effect at once: if the balance is already below it, nothing fires until the
 * balance has risen to it and fallen below again; a threshold of 0 never fires.
 */
import { isoTime } from "../../core/clock.ts";
import type { Ledger } from "../../core/ledger.ts";
import type { Context } from "../../context.ts";

export const BALANCE_LOW = "balance_low";

export interface AlertsView {
  /** The account's own threshold; null = the deployment default. */
  balance_low_micro_usd: number | null;
  default_threshold_micro_usd: number;
  effective_threshold_micro_usd: number;
  /** True when the balance is at or above the threshold, i.e. the next crossing will fire. */
  armed: boolean;
  balance_micro_usd: number;
  last_fired_at: string | null;
}

interface AlertRow {
  balance_low_micro_usd: number | null;
  last_fired_at: number | null;
}

const alertRow = (ctx: Context, accountId: string): AlertRow | null =>
  ctx.db.query<AlertRow, [string]>("SELECT balance_low_micro_usd, last_fired_at FROM billing_alerts WHERE account_id = ?").get(accountId);

export const thresholdFor = (ctx: Context, accountId: string): number =>
  alertRow(ctx, accountId)?.balance_low_micro_usd ?? ctx.config.billing.balance_low_micro_usd;

export function getAlerts(ctx: Context, accountId: string): AlertsView {
  const row = alertRow(ctx, accountId);
  const fallback = ctx.config.billing.balance_low_micro_usd;
  const threshold = row?.balance_low_micro_usd ?? fallback;
  const { balance_micro_usd } = ctx.ledger.balance(accountId);
  return {
    balance_low_micro_usd: row?.balance_low_micro_usd ?? null,
    default_threshold_micro_usd: fallback,
    effective_threshold_micro_usd: threshold,
    armed: balance_micro_usd >= threshold,
    balance_micro_usd,
    last_fired_at: row?.last_fired_at == null ? null : isoTime(row.last_fired_at),
  };
}

/** Sets the account's threshold; null returns it to the deployment default. Never fires by itself (no debit crossed). */
export function setAlerts(ctx: Context, accountId: string, threshold: number | null): AlertsView {
  ctx.db
    .query(
      `INSERT INTO billing_alerts (account_id, balance_low_micro_usd, updated_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (account_id) DO UPDATE SET balance_low_micro_usd = ?2, updated_at = ?3`,
    )
    .run(accountId, threshold, ctx.clock.now());
  return getAlerts(ctx, accountId);
}

const registered = new WeakSet<Ledger>();

/**
 * Watches every balance change of this context's ledger. openContext calls this for every
 * context, because balances fall from many places: the meter's settle (HTTP), subscription
 * renewals (the scheduler) and operator charges (the CLI, which never builds the app).
 * Registering twice is a no-op, so an event can never be doubled.
 */
export function registerBalanceAlerts(ctx: Context): void {
  if (registered.has(ctx.ledger)) return;
  registered.add(ctx.ledger);
  ctx.ledger.onBalanceChange(({ accountId, before, after }) => {
    if (after >= before) return; // only a fall can cross downward
    const threshold = thresholdFor(ctx, accountId);
    if (!(before >= threshold && after < threshold)) return;
    const now = ctx.clock.now();
    ctx.db
      .query(
        `INSERT INTO billing_alerts (account_id, last_fired_at, updated_at) VALUES (?1, ?2, ?2)
         ON CONFLICT (account_id) DO UPDATE SET last_fired_at = ?2`,
      )
      .run(accountId, now);
    ctx.outbox.emit(BALANCE_LOW, accountId, { balance_micro_usd: after, threshold_micro_usd: threshold });
  });
}
