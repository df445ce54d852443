/**
 * API keys with spend controls: scopes, caps, circuit breaker, delegation, rotation (/v1/keys; `svc keys …`).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { API_KEY_PREFIX, type ApiKeyPrincipal, principalOfKey, resolveApiKey } from "./principal.ts";
export { hasScope, missingScope, parseScopes, type Scope, SCOPES, scopesWithin } from "./scopes.ts";
export { auditKey, delegateKey, keyNotFound, listKeys, type MintedKey, mintKey, revokeKey, setKeyExpiry, setKeyMonthlyCap } from "./service.ts";
export { getKeyRow, keyCountsOf, keyInForce, keyPrivacyTier, type KeyRow, keyRowsOf, keyView, type KeyView, subtreeIds, usableStandardKeyCount } from "./store.ts";
