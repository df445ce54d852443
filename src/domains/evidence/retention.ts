/**
 * The daily pass that forgets old retrieval bytes (evidence.body_retention_days): a subject
 * checked every minute would otherwise keep every answer forever. Bounded per run; the next run
 * continues where a large backlog left off.
 */
import type { Context } from "../../context.ts";
import { dropBodiesBefore } from "./store.ts";

const JOB = "evidence.drop_old_bodies";
const EVERY_MS = 60 * 60 * 1000;
const BATCH = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** One pass; returns how many bodies were dropped. */
export function dropOldBodies(ctx: Context): number {
  const days = ctx.config.evidence.body_retention_days;
  if (days === 0) return 0;
  return ctx.tx.run(() => dropBodiesBefore(ctx, ctx.clock.now() - days * DAY_MS, BATCH));
}

export function registerEvidenceJobs(ctx: Context): void {
  ctx.scheduler.every(JOB, EVERY_MS, () => void dropOldBodies(ctx));
}
