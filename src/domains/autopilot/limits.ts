/**
 * The autopilot's numbers in one place: the schemas state them (models.ts), the service
 * enforces them, docs/autopilot.md explains them.
 */

/** POST /v1/autopilot/analyze looks back this many days (1 to 90, default 30). */
export const ANALYZE_DAYS = { min: 1, max: 90, default: 30 } as const;
/** Open proposals an account may have at once; an analysis that would pass it writes the most valuable first and counts the rest. */
export const OPEN_PROPOSALS_CAP = 100;
/** GET /v1/autopilot/proposals ?limit=: 1 to 200, default 50 (above 200 is clamped). */
export const LIST_LIMIT = { min: 1, max: 200, default: 50 } as const;
export const REJECT_REASON_MAX = 500;

export const PROPOSAL_KINDS = ["switch_model", "set_key_cap"] as const;
export type ProposalKind = (typeof PROPOSAL_KINDS)[number];

export const PROPOSAL_STATUSES = ["open", "adopted", "rejected", "superseded"] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** A proposed monthly cap is the highest month's spend times 3/2, rounded up to a whole cent (10,000 micro-USD). */
export const CAP_HEADROOM = { numerator: 3, denominator: 2 } as const;
export const CENT_MICRO_USD = 10_000;
