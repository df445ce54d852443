/**
 * Asset attestations: metered checks of an asset against its evidence, versioned records, refresh, public verification view (/v1/attestations/*, /v1/assets/:asset_id/verification; docs/attestations.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
/** The attestation.* event names (for the webhook catalogue) and the pass that sends attestation.stale. */
export { ATTESTATION_EVENTS, sendStaleNotices } from "./events.ts";
