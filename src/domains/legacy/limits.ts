/**
 * The legacy plans' sizes and bounds in one place: the schemas (models.ts) state them to the
 * OpenAPI document, the service enforces what a schema cannot. Spec §8: the plans, attesting
 * and claims lists return at most 100. The active-plan cap, the content size and the default
 * attester hold are operator settings (config.ts).
 */

/** Spec §8 (legacy plans/attesting/claims: 100). */
export const LIST_CAP = 100;

export const MAX_NAME_CHARS = 200;
export const MAX_LABEL_CHARS = 200;
export const MAX_BENEFICIARIES = 10;
export const MAX_ATTESTERS = 10;
export const MAX_OBJECTS = 20;

const HOUR_S = 3600;
const DAY_S = 86_400;

/** An hour at the least: shorter would make a missed check-in a matter of minutes. */
export const MIN_INTERVAL_S = HOUR_S;
/** Five years: the longest a plan may go between check-ins. */
export const MAX_INTERVAL_S = 5 * 365 * DAY_S;
export const MIN_WARNING_S = HOUR_S;
export const MAX_WARNING_S = 365 * DAY_S;
export const MIN_HOLD_S = HOUR_S;
export const MAX_HOLD_S = 365 * DAY_S;

/** Entries of a plan's history shown by GET /v1/legacy/plans/:id (the newest). */
export const HISTORY_SHOWN = 100;

/** How often the sweep moves plans whose deadline, warning or hold has passed. */
export const SWEEP_EVERY_MS = 60_000;
/** Plans the sweep moves per run; a backlog drains one run at a time. */
export const SWEEP_BATCH = 500;

/** How the content is held (GET /v1/legacy/plans `custody`; docs/legacy.md "Custody"). */
export const CUSTODY = "sealed-by-operator" as const;
