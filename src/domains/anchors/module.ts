/**
 * Merkle roots over receipts and where they are anchored (/v1/anchors/*; `svc anchors …`).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { anchorsGroup } from "./cli.ts";
import { anchorsConfig } from "./config.ts";
import { anchorRoutes } from "./routes.ts";
import { registerAnchorJobs } from "./service.ts";

export const anchorsModule = defineModule({
  name: "anchors",
  config: anchorsConfig,
  routes: (ctx) => [anchorRoutes(ctx)],
  jobs: registerAnchorJobs,
  cli: [anchorsGroup],
});
