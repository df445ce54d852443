/**
 * POST /v1/reports/sla and the per-route request statistics it is computed from.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { requestStats } from "./request-stats.ts";
