/**
 * API keys with spend controls: scopes, caps, circuit breaker, delegation, rotation (/v1/keys; `svc keys …`).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { keysGroup } from "./cli.ts";
import { keysConfig } from "./config.ts";
import { keyRoutes } from "./routes.ts";

export const keysModule = defineModule({
  name: "keys",
  config: keysConfig,
  wire(ctx) {
    ctx.meter.useDefaultBreaker(() => ctx.config.keys.breaker_micro_usd_per_minute);
  },
  routes: (ctx) => [keyRoutes(ctx)],
  cli: [keysGroup],
});
