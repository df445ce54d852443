/**
 * A video job's polls: one scheduler job at a time per video job, each scheduling the next in
 * the transaction that records what it saw (rows in `jobs`, so they survive a restart).
 */
import type { Context } from "../../../context.ts";

export const VIDEO_POLL_JOB = "media.video_poll";
export const VIDEO_WATCH_JOB = "media.video_watch";

export const pollIntervalMs = (ctx: Context): number => ctx.config.media.video_poll_interval_secs * 1000;

/** The next poll of `id`: an interval from now, and never later than its deadline (the last poll decides). */
export function schedulePoll(ctx: Context, id: string, deadline: number): void {
  const runAt = Math.min(ctx.clock.now() + pollIntervalMs(ctx), deadline);
  ctx.scheduler.schedule(VIDEO_POLL_JOB, { video_id: id }, { runAt, uniqueKey: `${VIDEO_POLL_JOB}:${id}:${runAt}` });
}
