/**
 * GET /v1/explorer: public aggregate proof counts, recently shared receipts and anchors.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
