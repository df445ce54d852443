/**
 * Sealed calls: commit a text's fingerprint now, reveal it later (/v1/calls/*; docs/calls.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
