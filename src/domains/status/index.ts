/**
 * GET /v1/status: recorded health samples, uptime and the replication posture.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { firstSampleAt, sampleCounts, uptime, type UptimeWindow } from "./health.ts";
