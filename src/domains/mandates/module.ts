/**
 * Mandates: bounded spending authority minted as a constrained sub-key (/v1/mandates).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { mandateRoutes } from "./routes.ts";

export const mandatesModule = defineModule({ name: "mandates", routes: (ctx) => [mandateRoutes(ctx)] });
