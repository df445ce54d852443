/**
 * The sandboxes area's scheduler work: session stops and alive-time billing (sessions.ts, one
 * job per session and timer, never a setTimeout) and the hourly pruning of Idempotency-Key
 * results older than 24 hours.
 */
import type { Context } from "../../context.ts";
import { pruneIdempotency } from "./idempotency.ts";
import { registerSessionJobs } from "./sessions.ts";

export const IDEMPOTENCY_PRUNE_JOB = "sandboxes.idempotency_prune";

export function registerSandboxJobs(ctx: Context): void {
  registerSessionJobs(ctx);
  ctx.scheduler.every(IDEMPOTENCY_PRUNE_JOB, 3600_000, () => {
    pruneIdempotency(ctx);
  });
}
