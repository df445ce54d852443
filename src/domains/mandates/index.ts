/**
 * Mandates: bounded spending authority minted as a constrained sub-key (/v1/mandates).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
export { getMandate, listMandates, type MandateStatus, type MandateTerms, mandatesForKeys, type MandateView } from "./service.ts";
