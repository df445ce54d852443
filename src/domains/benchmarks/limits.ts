/** The benchmarks area's sizes in one place (docs/benchmarks.md "Limits"). */
import type { LimitRule } from "../../core/envelopes.ts";

/** History of one benchmark's results, like the other versioned records (spec §8: NAV history). */
export const HISTORY_LIMIT: LimitRule = { min: 1, max: 200, default: 50 };

/** Holdings in one request: enough for a real allocation, small enough to seal in one row. */
export const MAX_HOLDINGS = 200;

/** Bands GET /v1/benchmarks/cohorts returns (most recent periods first). */
export const COHORTS_CAP = 200;

/** The longest retention a caller may choose for the sealed holdings. */
export const MAX_RETENTION_DAYS = 365;

export const MAX_LABEL_CHARS = 100;

/** Expired holdings the retention job destroys per pass; the next pass takes the rest. */
export const DESTROY_BATCH = 500;
