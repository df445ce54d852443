/**
 * OAuth 2.1 for MCP clients: discovery documents, registration, authorization with consent,
 * tokens backed by API keys (docs/oauth.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { oauthConfig } from "./config.ts";
import { oauthRoutes } from "./routes.ts";
import { pruneExpired } from "./tokens.ts";

export const oauthModule = defineModule({
  name: "oauth",
  config: oauthConfig,
  routes: (ctx) => oauthRoutes(ctx),
  jobs(ctx) {
    ctx.scheduler.every("oauth.prune", 60 * 60_000, () => void pruneExpired(ctx));
  },
});
