/**
 * GET /metrics: Prometheus text for the operator, mounted only with a metrics token.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
