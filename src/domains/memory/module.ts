/**
 * Memory collections (/v1/memory/collections): documents chunked, embedded through the metered
 * inference pipeline, and searched by vector (sqlite-vec), keyword (FTS5) or both.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 *
 * sqlite-vec is named to the context (sqliteExtensions), which loads it on the connection before
 * migrations run; a compiled binary first writes it to <data dir>/lib (engine/vector-extension.ts).
 * The area is on where this build carries sqlite-vec (linux-x64) and off elsewhere.
 */
import { join } from "node:path";
import { defineModule } from "../../module.ts";
import { memoryGroup } from "./cli.ts";
import { memoryConfig } from "./config.ts";
import { VECTOR_ENTRY_POINT, vectorExtensionPath, vectorExtensionSupported } from "./engine/index.ts";
import { memoryRoutes } from "./routes.ts";
import { PURGE_JOB, PURGE_SWEEP_JOB, purgeDeleted } from "./service.ts";

export const memoryModule = defineModule({
  name: "memory",
  enabled: () => vectorExtensionSupported(),
  config: memoryConfig,
  sqliteExtensions: (config) => [{ path: vectorExtensionPath({ libDir: join(config.data_dir, "lib") }), entryPoint: VECTOR_ENTRY_POINT }],
  wire(ctx) {
    if (ctx.config.memory.mmap_bytes > 0) ctx.db.run(`PRAGMA mmap_size = ${ctx.config.memory.mmap_bytes}`);
  },
  routes: (ctx) => [memoryRoutes(ctx)],
  jobs(ctx) {
    ctx.scheduler.register(PURGE_JOB, async (job, signal) => {
      const key = job.payload.collection_key;
      await purgeDeleted(ctx, typeof key === "number" ? key : undefined, signal);
    });
    // A purge whose job ran out of attempts is finished by this one (hourly, and at every start).
    ctx.scheduler.every(PURGE_SWEEP_JOB, 3_600_000, async (_job, signal) => void (await purgeDeleted(ctx, undefined, signal)));
  },
  cli: [memoryGroup],
});
