/**
 * Relays: one-time, sealed share links (/v1/relays/*, /v1/relay-access/*; docs/relays.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { relayAccessRoutes } from "./access-routes.ts";
import { relaysConfig } from "./config.ts";
import { PURGE_EVERY_MS, PURGE_JOB, purgeRelays } from "./purge.ts";
import { relayRoutes } from "./routes.ts";

export const relaysModule = defineModule({
  name: "relays",
  config: relaysConfig,
  // Objects come base64 in JSON (4 characters per 3 bytes), with room for the JSON around them.
  bodyLimits: (ctx) => ({ "POST /v1/relays": Math.max(ctx.config.max_body_bytes, Math.ceil((ctx.config.relays.max_relay_bytes * 4) / 3) + 64 * 1024) }),
  routes: (ctx) => [relayRoutes(ctx), relayAccessRoutes(ctx)],
  jobs(ctx) {
    // Bounded per run; a backlog drains one run a minute at a time.
    ctx.scheduler.every(PURGE_JOB, PURGE_EVERY_MS, () => void purgeRelays(ctx));
  },
});
