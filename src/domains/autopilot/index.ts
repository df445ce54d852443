/**
 * Autopilot: proposals drawn from the account's usage, receipts and eval results, adopted by an admin.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { PROPOSAL_KINDS, type ProposalKind } from "./limits.ts";
