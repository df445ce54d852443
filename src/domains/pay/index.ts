/**
 * Payment requests: signed requests for an on-chain transfer, settled by its transaction (/v1/pay/*; docs/payments.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
