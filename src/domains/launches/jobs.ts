/**
 * The scheduled check of one launch (schedule.ts): check, charge the monthly fee when due, queue
 * the next. The monthly fee (launches.monthly_fee_micro_usd, 0 by default) is metered work with a
 * receipt; an account that cannot pay it gets a monthly_fee entry with paid:false in the log and
 * is asked again at the next check — the launch keeps being checked (its record is public).
 */
import { ApiError } from "../../core/errors.ts";
import { meterWork } from "../../core/metered-work.ts";
import type { Context } from "../../context.ts";
import { appendAction } from "./actions.ts";
import { runCheck } from "./checks.ts";
import { CHECK_JOB, scheduleCheck } from "./schedule.ts";
import { MONTH_MS } from "./service.ts";
import { launchById, type LaunchRow, setFeePaidUntil } from "./store.ts";

async function chargeMonthlyFee(ctx: Context, launch: LaunchRow): Promise<void> {
  const fee = ctx.config.launches.monthly_fee_micro_usd;
  const now = ctx.clock.now();
  if (fee === 0 || (launch.fee_paid_until ?? 0) > now) return;
  const until = Math.max(launch.fee_paid_until ?? now, now) + MONTH_MS;
  try {
    await meterWork(ctx.meter, ctx.log, { accountId: launch.account_id, keyId: null, price: fee, kind: "launch_monthly_fee", resource: launch.id }, async () => {
      ctx.tx.run(() => {
        setFeePaidUntil(ctx, launch.id, until);
        appendAction(ctx, launch.id, "monthly_fee", { paid: true, amount_micro_usd: fee, paid_until: new Date(until).toISOString() });
      });
      return { result: null, status: "paid", units: { launch_id: launch.id } };
    });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 402) throw err;
    ctx.tx.run(() => appendAction(ctx, launch.id, "monthly_fee", { paid: false, amount_micro_usd: fee, reason: err.type }));
  }
}

export async function scheduledCheck(ctx: Context, launchId: string): Promise<void> {
  const launch = launchById(ctx, launchId);
  if (!launch || launch.status !== "active") return;
  await runCheck(ctx, launch, "scheduled");
  await chargeMonthlyFee(ctx, launch);
  const next = launchById(ctx, launchId)!;
  if (next.status === "active") scheduleCheck(ctx, launchId, next.interval_s * 1000);
}

export function registerLaunchJobs(ctx: Context): void {
  ctx.scheduler.register(CHECK_JOB, (job) => scheduledCheck(ctx, String(job.payload.launch_id)));
}
