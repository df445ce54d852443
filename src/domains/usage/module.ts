/**
 * Usage: metering events, summaries, statements, CSV and the live SSE feed (/v1/usage/*).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { usageRoutes } from "./routes.ts";

export const usageModule = defineModule({ name: "usage", routes: (ctx) => [usageRoutes(ctx)] });
