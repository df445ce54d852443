/**
 * Asset attestations: metered checks of an asset against its evidence, versioned records, refresh, public verification view (/v1/attestations/*, /v1/assets/:asset_id/verification; docs/attestations.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { attestationsConfig } from "./config.ts";
import { sendStaleNotices, STALE_JOB } from "./events.ts";
import { STALE_SCAN_EVERY_MS } from "./limits.ts";
import { attestationsRoutes } from "./routes.ts";

export const attestationsModule = defineModule({
  name: "attestations",
  config: attestationsConfig,
  routes: (ctx) => attestationsRoutes(ctx),
  jobs(ctx) {
    ctx.scheduler.every(STALE_JOB, STALE_SCAN_EVERY_MS, () => void sendStaleNotices(ctx));
  },
});
