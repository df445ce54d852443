/** Sign-in (SIWE, passkeys), sessions and linked wallets (/v1/auth/*). */
import { defineModule } from "../../module.ts";
import { authConfig, passkeysEnabled } from "./config.ts";
import { passkeyRoutes } from "./passkey-routes.ts";
import { registerPasskeyJobs } from "./passkeys.ts";
import { authRoutes } from "./routes.ts";
import { pruneNonces } from "./siwe.ts";

const HOUR_MS = 3_600_000;

export const authModule = defineModule({
  name: "auth",
  config: authConfig,
  routes: (ctx) => [...(passkeysEnabled(ctx.config) ? [passkeyRoutes(ctx)] : []), authRoutes(ctx)],
  jobs(ctx) {
    registerPasskeyJobs(ctx);
    ctx.scheduler.every("auth.prune_nonces", HOUR_MS, () => {
      pruneNonces(ctx);
    });
  },
});

export { listPasskeys } from "./passkeys.ts";
export { type SessionPrincipal, listSessions, resolveSession, SESSION_COOKIE, SESSION_PREFIX } from "./sessions.ts";
export { accountForWallet } from "./signin.ts";
export { findAccountByWallet, listWallets, normalizeAddress, primaryWallet, type WalletView } from "./wallets.ts";
