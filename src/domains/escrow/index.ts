/**
 * Escrow claims: claim inputs prepared from a signed receipt (/v1/escrow/*; docs/payments.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
