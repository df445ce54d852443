/**
 * The escrow-claim sizes in one place (docs/payments.md "Escrow claims"). The claims list takes
 * limit 1-200, default 50, like the other record lists (spec §8 states no range of its own).
 */
import type { LimitRule } from "../../core/envelopes.ts";

export const CLAIMS_LIMIT: LimitRule = { min: 1, max: 200, default: 50 };
/** The receipts area's own bound on a receipt string (receipts/verify.ts MAX_RECEIPT_CHARS). */
export const MAX_RECEIPT_CHARS = 65_536;
