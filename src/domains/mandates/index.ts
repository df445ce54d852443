/**
 * Mandates: bounded spending authority minted as a constrained sub-key (/v1/mandates).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
export { type MandateTerms, mandatesForKeys } from "./service.ts";
