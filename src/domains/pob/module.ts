/**
 * Proof of backing: watched custodian subjects checked on a schedule, each check published with the canonical line its hash was computed over (/v1/pob/*; docs/pob.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { pobConfig } from "./config.ts";
import { pobRoutes } from "./routes.ts";
import { registerPobJobs } from "./schedule.ts";

export const pobModule = defineModule({ name: "pob", config: pobConfig, routes: (ctx) => pobRoutes(ctx), jobs: registerPobJobs });
