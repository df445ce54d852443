/**
 * Batches: the OpenAI Batch API over the inference pipeline — an uploaded file's lines run one
 * by one, each metered and receipted (/v1/batches/*).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { registerUploadPurpose } from "../files/index.ts";
import { batchesGroup } from "./cli.ts";
import { batchesConfig } from "./config.ts";
import { batchLineChecker } from "./lines.ts";
import { batchRoutes } from "./routes.ts";
import { BatchRunner } from "./runner.ts";
import { EXPIRE_JOB, expireBatch, fileInUse } from "./service.ts";

export const batchesModule = defineModule({
  name: "batches",
  config: batchesConfig,
  wire(ctx) {
    ctx.batchRunner = new BatchRunner(ctx);
    registerUploadPurpose(ctx, "batch", { checker: batchLineChecker, inUse: (fileId) => fileInUse(ctx, fileId) });
  },
  routes: (ctx) => [batchRoutes(ctx)],
  jobs(ctx) {
    ctx.scheduler.register(EXPIRE_JOB, (job) => expireBatch(ctx, String(job.payload.batch_id)));
  },
  serve: {
    start: (ctx) => ctx.batchRunner.start(),
    // Lines in flight get the shutdown grace to finish; the rest resume at the next start.
    stop: (ctx) => ctx.batchRunner.stop(ctx.config.shutdown_grace_secs * 1000),
  },
  cli: [batchesGroup],
});
