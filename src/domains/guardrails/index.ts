/**
 * Guardrails: detectors enforced in the inference pipeline, the findings they stamp on
 * receipts, and the account's effective policies.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { Guard, guardFor, OutputWindow } from "./guard.ts";
