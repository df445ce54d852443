/**
 * GET /v1/explorer: public aggregate proof counts, recently shared receipts and anchors.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { explorerRoutes } from "./routes.ts";

export const explorerModule = defineModule({ name: "explorer", routes: (ctx) => [explorerRoutes(ctx)] });
