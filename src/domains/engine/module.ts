/**
 * Engine builds: pinned model + system prompt + parameters, published by slug and callable as engine/<slug> (/v1/engine/*; docs/engine.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { engineRoutes } from "./routes.ts";

export const engineModule = defineModule({ name: "engine", routes: (ctx) => [engineRoutes(ctx)] });
