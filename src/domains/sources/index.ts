/**
 * Source sets: named, fingerprinted lists of sources a receipt can reference (/v1/sources/*; docs/sources.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
/** The receipt attestation of a call that cites a set (inference's svc_source_set). */
export { sourceSetAttestation } from "./service.ts";
