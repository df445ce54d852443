/**
 * GET /v1/credit: an API key's view of its account's credit and its own limits.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { creditRoutes } from "./routes.ts";

export const creditModule = defineModule({ name: "credit", routes: (ctx) => [creditRoutes(ctx)] });
