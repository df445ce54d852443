/**
 * The video jobs' scheduler work: each job's polls (media.video_poll, one pending at a time,
 * rows in `jobs`: a restart resumes them) and a watchdog (media.video_watch, every minute) that
 * expires, hold released, an unfinished job well past its deadline whose polls stopped.
 */
import type { Context } from "../../../context.ts";
import { WATCH_EVERY_MS, WATCH_GRACE_MS } from "./limits.ts";
import { expireOverdue, pollJob } from "./poll.ts";
import { VIDEO_POLL_JOB, VIDEO_WATCH_JOB } from "./schedule.ts";

export function registerVideoJobs(ctx: Context): void {
  ctx.scheduler.register(VIDEO_POLL_JOB, (job) => pollJob(ctx, String(job.payload.video_id ?? "")));
  ctx.scheduler.every(VIDEO_WATCH_JOB, WATCH_EVERY_MS, () => {
    const n = expireOverdue(ctx, WATCH_GRACE_MS);
    if (n) ctx.log.warn("video jobs expired by the watchdog: their polls had stopped", { jobs: n });
  });
}
