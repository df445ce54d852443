/**
 * Sign-in (SIWE, passkeys), sessions and linked wallets (/v1/auth/*).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { checkSessionCsrf, CSRF_HEADER, sessionCsrfToken } from "./csrf.ts";
export { listPasskeys } from "./passkeys.ts";
export { listSessions, resolveSession, sessionInForce, SESSION_COOKIE, SESSION_PREFIX, type SessionPrincipal } from "./sessions.ts";
export { accountForWallet } from "./signin.ts";
export { findAccountByWallet, listWallets, normalizeAddress, primaryWallet, walletAddressesOf, type WalletView } from "./wallets.ts";
