/**
 * Every recurring job and job handler of the product, registered on the context's scheduler.
 * `svc serve` calls this before starting the scheduler; a domain adds its jobs here.
 */
import type { Context } from "./context.ts";
import { registerAnchorJobs } from "./domains/anchors/service.ts";
import { registerPasskeyJobs } from "./domains/auth/passkeys.ts";
import { pruneNonces } from "./domains/auth/siwe.ts";
import { registerDepositJobs } from "./domains/billing/deposits.ts";
import { registerSubscriptionJobs } from "./domains/billing/subscriptions.ts";
import { registerGhostJobs } from "./domains/ghosts/service.ts";
import { registerRequestStatsJobs } from "./domains/reports/request-stats.ts";
import { registerHealthJobs } from "./domains/status/health.ts";
import { registerWebhookJobs } from "./domains/webhooks/delivery.ts";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export function registerJobs(ctx: Context): void {
  registerHealthJobs(ctx);
  registerPasskeyJobs(ctx);
  registerGhostJobs(ctx);
  // Request metrics for the SLA report: merged from memory into request_stats every minute, pruned after the retention.
  registerRequestStatsJobs(ctx);
  registerSubscriptionJobs(ctx);
  // Pending USDT deposits are re-checked every 30 s and credited once they have their confirmations.
  registerDepositJobs(ctx);
  // New receipts are batched under one Merkle root per interval and anchored; evm anchors are sent and confirmed.
  registerAnchorJobs(ctx);
  // Outbox events fan out to webhooks and are delivered by attempt jobs; delivery rows are pruned after 30 days.
  registerWebhookJobs(ctx);
  ctx.scheduler.every("jobs.prune_failed", DAY_MS, () => {
    ctx.scheduler.pruneFailed(30 * DAY_MS);
  });
  ctx.scheduler.every("auth.prune_nonces", HOUR_MS, () => {
    pruneNonces(ctx);
  });
  // Reservations whose work died are given back; breaker buckets older than a minute go.
  ctx.scheduler.every("meter.sweep", 60_000, () => {
    ctx.meter.sweep();
    ctx.meter.pruneWindow();
  });
  // Replication lag and last sync for /v1/status and /metrics (a no-op when svc is not replicating).
  ctx.scheduler.every("backup.monitor", 5_000, () => ctx.replication.refresh());
}
