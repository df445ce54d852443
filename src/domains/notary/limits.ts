/**
 * The notary's sizes in one place (docs/notary.md "Limits"). The list takes limit 1-200,
 * default 50, like the other receipt-bearing lists of spec §8; the rest are svc's.
 */
import type { LimitRule } from "../../core/envelopes.ts";

export const RECEIPTS_LIMIT: LimitRule = { min: 1, max: 200, default: 50 };

export const MAX_LABEL_CHARS = 200;

/** occurred_at may run ahead of svc's clock by this much (clock skew), not more: work cannot have happened in the future. */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;
