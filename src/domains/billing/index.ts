/**
 * Prepaid credit and what funds it: balance and ledger, USDT deposits, x402 payments, plans and
 * subscriptions, balance alerts (/v1/billing/*; `svc chains …`).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { assertApiKeyAllowed, assertWithinPlanLimit, planLimit } from "./limits.ts";
export { type ChainConfig, parseEvmAddress } from "./transfer-check.ts";
export { chainNamed, clientFor, inspectTransaction, type Inspection, normalizeTxHash } from "./transfer-check.ts";
export { acceptPayment, parseProof, paymentHeader, paymentRejected, paymentResponseHeaders, paymentTerms, x402Terms } from "./x402.ts";
export { type AdjustmentInput, adjustCredit } from "./adjustments.ts";
export { entryView, type EntryView, recentEntries } from "./ledger.ts";
/** The shapes of a balance and a ledger entry, for other areas' responses that include them (admin). */
export { Balance, LedgerEntry } from "./models.ts";
export { spendTreasuryTransfer, type TreasurySpend } from "./treasury-spends.ts";
