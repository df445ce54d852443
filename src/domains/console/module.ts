/**
 * The web console at /console: a Preact app embedded in the binary, calling the HTTP API with
 * the session cookie (docs/console.md). Its sources are console/ at the repository root.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { consoleConfig } from "./config.ts";
import { consoleRoutes } from "./routes.ts";

export const consoleModule = defineModule({
  name: "console",
  config: consoleConfig,
  enabled: (config) => config.console.enabled,
  routes: (ctx) => consoleRoutes(ctx),
});
