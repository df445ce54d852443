/**
 * Sealed calls: commit a text's fingerprint now, reveal it later (/v1/calls/*; docs/calls.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { registerAnchorJob } from "./anchoring.ts";
import { callsConfig } from "./config.ts";
import { callRoutes } from "./routes.ts";

export const callsModule = defineModule({ name: "calls", config: callsConfig, routes: (ctx) => callRoutes(ctx), jobs: registerAnchorJob });
