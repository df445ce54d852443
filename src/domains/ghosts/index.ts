/** Ghost sessions: short-lived keys that leave no metadata behind (/v1/ghost/sessions). */
import { defineModule } from "../../module.ts";
import { ghostRoutes } from "./routes.ts";
import { registerGhostJobs } from "./service.ts";

export const ghostsModule = defineModule({ name: "ghosts", routes: (ctx) => [ghostRoutes(ctx)], jobs: registerGhostJobs });
