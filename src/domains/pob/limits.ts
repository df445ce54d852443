/** Fixed bounds of the proof-of-backing area (docs/pob.md); the deployment's choices are in config.ts. */
import type { LimitRule } from "../../core/envelopes.ts";

/** The longest interval between scheduled checks: 30 days. */
export const MAX_INTERVAL_SECS = 30 * 86_400;

/** Pages of checks (?limit=), like the NAV history of spec §8: 1-200, default 50, clamped above. */
export const CHECKS_LIMIT: LimitRule = { min: 1, max: 200, default: 50 };

/** GET /v1/pob/subjects: the account's subjects, newest first, at most this many. */
export const SUBJECTS_LIST_CAP = 500;

/** GET /v1/pob/directory: public subjects, newest first, at most this many. */
export const DIRECTORY_CAP = 500;

/** An owner's check-now is refused (429) this soon after the previous one, so a loop cannot flood the public history. */
export const OWNER_CHECK_COOLDOWN_SECS = 10;

/** Slugs: lowercase letters, digits and single dashes; the stem derived from a name is cut to this length. */
export const SLUG_STEM_MAX = 48;

/** How often the recurring pass looks for subjects whose next check is due (at most; shorter when min_interval_secs is). */
export const SWEEP_EVERY_MS = 15_000;
