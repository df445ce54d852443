/**
 * Passports: an agent's track record from its own receipts, runs, anchors, usage and mandates, signed and committed (/v1/passport/*, /v1/registry/identity/:handle; docs/passport.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { HANDLE_PATTERN, HANDLE_RULE } from "./limits.ts";
export { passportHandleOwner } from "./service.ts";
