/**
 * Ghost sessions: short-lived keys that leave no metadata behind (/v1/ghost/sessions).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { ghostRoutes } from "./routes.ts";
import { registerGhostJobs } from "./service.ts";

export const ghostsModule = defineModule({ name: "ghosts", routes: (ctx) => [ghostRoutes(ctx)], jobs: registerGhostJobs });
