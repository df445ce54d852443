/**
 * How long sealed holdings live: "none" (never stored: destroyed as soon as the first result is
 * computed) or "<N>d" (1-365 days, then destroyed by the retention job, or at the first read or
 * refresh after expiry, whichever comes first). The spec names no delete route, so there is no
 * "until deleted": holdings that could outlive every use would not be destroyed at all.
 */
import { invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { DESTROY_BATCH, MAX_RETENTION_DAYS } from "./limits.ts";
import { type BenchmarkRow, destroyHoldings, expiredHoldings } from "./store.ts";

export const DESTROY_JOB = "benchmarks.destroy_expired_holdings";
export const RETENTION_PATTERN = "^(none|[1-9][0-9]{0,2}d)$";
const DAY_MS = 86_400_000;

/** The holdings' lifetime in ms: 0 for "none". */
export function retentionMs(retention: string): number {
  if (retention === "none") return 0;
  const days = /^([1-9]\d{0,2})d$/.exec(retention);
  if (!days || Number(days[1]) > MAX_RETENTION_DAYS) throw invalidField("retention", `must be "none" or a number of days from 1d to ${MAX_RETENTION_DAYS}d`);
  return Number(days[1]) * DAY_MS;
}

/** The row as it stands now: holdings past their expiry are destroyed here rather than shown as still sealed. */
export function withRetention(ctx: Context, row: BenchmarkRow): BenchmarkRow {
  const now = ctx.clock.now();
  if (row.holdings_sealed === null || row.holdings_expires_at === null || row.holdings_expires_at > now) return row;
  destroyHoldings(ctx, row.id, now);
  return { ...row, holdings_sealed: null, holdings_destroyed_at: now };
}

/** One pass of the retention job: destroys up to DESTROY_BATCH expired holdings. Returns how many. */
export function destroyExpiredHoldings(ctx: Context): number {
  const now = ctx.clock.now();
  let destroyed = 0;
  ctx.tx.run(() => {
    for (const id of expiredHoldings(ctx, now, DESTROY_BATCH)) if (destroyHoldings(ctx, id, now)) destroyed++;
  });
  return destroyed;
}

export function registerBenchmarkJobs(ctx: Context): void {
  ctx.scheduler.every(DESTROY_JOB, ctx.config.benchmarks.sweep_interval_secs * 1000, () => {
    destroyExpiredHoldings(ctx);
  });
}
