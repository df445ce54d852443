/**
 * Scheduled checks. A recurring pass finds active subjects whose next_check_at has come and
 * queues one job per subject (unique per subject, so a slow custodian never gets a second check
 * stacked behind the first); the job runs the check, which moves next_check_at on by the
 * subject's interval. A check that fails outright (not UNAVAILABLE: a crash) leaves
 * next_check_at in the past, so the next pass queues it again. Retiring sets next_check_at to
 * null and cancels the queued job; a job that runs anyway sees the subject retired and stops.
 */
import type { Context } from "../../context.ts";
import { runCheck } from "./checks.ts";
import { SWEEP_EVERY_MS } from "./limits.ts";
import { dueSubjectIds, subjectById } from "./store.ts";

export const CHECK_JOB = "pob.check";
export const SWEEP_JOB = "pob.sweep";

/** Subjects queued by one pass at most; the rest wait for the next pass. */
const QUEUE_PER_PASS = 1000;

export const checkJobKey = (subjectId: string) => `${CHECK_JOB}:${subjectId}`;

function queueDue(ctx: Context): void {
  for (const id of dueSubjectIds(ctx, ctx.clock.now(), QUEUE_PER_PASS)) {
    ctx.scheduler.schedule(CHECK_JOB, { subject_id: id }, { uniqueKey: checkJobKey(id), maxAttempts: 1 });
  }
}

async function scheduledCheck(ctx: Context, subjectId: string): Promise<void> {
  const subject = subjectById(ctx, subjectId);
  if (!subject || subject.status !== "active" || subject.nextCheckAt === null || subject.nextCheckAt > ctx.clock.now()) return;
  await runCheck(ctx, subject, "schedule");
}

export function registerPobJobs(ctx: Context): void {
  ctx.scheduler.register(CHECK_JOB, (job) => scheduledCheck(ctx, String(job.payload.subject_id)));
  ctx.scheduler.every(SWEEP_JOB, Math.min(SWEEP_EVERY_MS, ctx.config.pob.min_interval_secs * 1000), () => queueDue(ctx));
}
