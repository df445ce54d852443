/**
 * KYA credentials: signed statements of what an agent may do, bound to a key or mandate (/v1/kya/*; docs/kya.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { kyaHandleOwner } from "./service.ts";
