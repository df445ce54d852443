/**
 * Source sets: named, fingerprinted lists of sources a receipt can reference (/v1/sources/*; docs/sources.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { sourcesRoutes } from "./routes.ts";

export const sourcesModule = defineModule({ name: "sources", routes: (ctx) => sourcesRoutes(ctx) });
