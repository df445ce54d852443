/**
 * Sealed durable state (/v1/state): JSON values by account, namespace and key, sealed at rest.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { getState, listStateKeyInfo, listStateKeys, putState, stateUsage, type StateEntry, type StateKeyInfo } from "./service.ts";
export { MAX_KEYS_LISTED, MAX_KEYS_PER_ACCOUNT, MAX_VALUE_BYTES } from "./limits.ts";
