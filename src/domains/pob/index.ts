/**
 * Proof of backing: watched custodian subjects checked on a schedule, each check published with the canonical line its hash was computed over (/v1/pob/*; docs/pob.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { canonicalLine, type CheckStatus } from "./line.ts";
