/**
 * KYA credentials: signed statements of what an agent may do, bound to a key or mandate (/v1/kya/*; docs/kya.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { kyaRoutes } from "./routes.ts";

export const kyaModule = defineModule({ name: "kya", routes: (ctx) => kyaRoutes(ctx) });
