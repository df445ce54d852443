/**
 * Files: JSONL uploads sealed at rest line by line with a hard expiry, and the output files
 * batches publish (/v1/files/*).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { filesConfig } from "./config.ts";
import { fileRoutes } from "./routes.ts";
import { purgeExpiredFiles } from "./service.ts";

export const PURGE_JOB = "files.purge";
const PURGE_EVERY_MS = 60_000;

export const filesModule = defineModule({
  name: "files",
  config: filesConfig,
  wire(ctx) {
    ctx.uploadPurposes = new Map();
  },
  // Uploads are bigger than other bodies: the route's own limit, with room for the multipart framing.
  bodyLimits: (ctx) => ({ "POST /v1/files": ctx.config.files.max_bytes + 64 * 1024 }),
  routes: (ctx) => [fileRoutes(ctx)],
  jobs(ctx) {
    // Bounded per run; a backlog drains one run a minute at a time.
    ctx.scheduler.every(PURGE_JOB, PURGE_EVERY_MS, () => void purgeExpiredFiles(ctx));
  },
});
