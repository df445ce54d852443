/**
 * Confidential computing posture: the attestation of the backends serving the confidential privacy tier, through a verifier interface (GET /v1/attestation, the confidential block of /v1/status; docs/confidential.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { type ConfidentialPosture, confidentialPosture, providerAttested } from "./posture.ts";
export { ConfidentialPostureSchema } from "./models.ts";
