/** The video jobs' fixed sizes and times (the configurable ones are media.video_* in ../config.ts). */

export const JOB_STATUSES = ["queued", "running", "succeeded", "failed", "canceled", "expired"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** GET /v1/videos/generations ?limit= (spec §8). */
export const LIST_LIMIT = { min: 1, max: 200, default: 50 } as const;

/** The largest first frame (image-to-video) svc passes on, decoded. The request body limit usually binds first. */
export const IMAGE_MAX_BYTES = 20 * 1024 * 1024;

/**
 * How long the hold outlives the job's deadline: the poll that finds a job past its deadline
 * may still deliver a render that finished in time, and must find the hold open to bill it.
 * Only past this does the meter's sweeper give the hold back on its own.
 */
export const HOLD_MARGIN_MS = 30 * 60_000;

/** The watchdog: how often it looks for unfinished jobs whose poll chain broke, and how long past the deadline it waits. */
export const WATCH_EVERY_MS = 60_000;
export const WATCH_GRACE_MS = 10 * 60_000;
