/**
 * The notary: signed receipts for work not run by svc (/v1/notary/*; docs/notary.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
