/**
 * Media: images and videos with signed provenance (docs/media.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { sweepExpiredAssets } from "./asset-store.ts";
import { mediaCli } from "./cli.ts";
import { mediaConfig } from "./config.ts";
import { imageRoutes } from "./images-routes.ts";
import { mediaModelRoutes } from "./models-routes.ts";
import { provenanceRoutes } from "./provenance-routes.ts";
import { videoRoutes } from "./videos-routes.ts";
import { registerVideoJobs } from "./videos/jobs.ts";

export const ASSET_SWEEP_JOB = "media.asset_sweep";
const SWEEP_EVERY_MS = 60_000;

export const mediaModule = defineModule({
  name: "media",
  config: mediaConfig,
  routes: (ctx) => [mediaModelRoutes(ctx), imageRoutes(ctx), videoRoutes(ctx), provenanceRoutes(ctx)],
  jobs(ctx) {
    // Bounded per run: a backlog drains a few hundred files a minute.
    ctx.scheduler.every(ASSET_SWEEP_JOB, SWEEP_EVERY_MS, () => void sweepExpiredAssets(ctx));
    registerVideoJobs(ctx);
  },
  cli: mediaCli,
});
