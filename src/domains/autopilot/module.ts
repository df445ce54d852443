/**
 * Autopilot: proposals drawn from the account's usage, receipts and eval results, adopted by an admin.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { autopilotRoutes } from "./routes.ts";

export const autopilotModule = defineModule({ name: "autopilot", routes: (ctx) => [autopilotRoutes(ctx)] });
