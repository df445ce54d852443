/**
 * Sign-in (SIWE, passkeys), sessions and linked wallets (/v1/auth/*).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
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
