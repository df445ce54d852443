/**
 * Passports: an agent's track record from its own receipts, runs, anchors, usage and mandates, signed and committed (/v1/passport/*, /v1/registry/identity/:handle; docs/passport.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { registerPassportJobs } from "./anchoring.ts";
import { passportConfig } from "./config.ts";
import { passportRoutes } from "./routes.ts";

export const passportModule = defineModule({ name: "passport", config: passportConfig, routes: (ctx) => passportRoutes(ctx), jobs: registerPassportJobs });
