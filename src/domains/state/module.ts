/**
 * Sealed durable state (/v1/state): JSON values by account, namespace and key, sealed at rest.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { stateGroup } from "./cli.ts";
import { stateRoutes } from "./routes.ts";

export const stateModule = defineModule({ name: "state", routes: (ctx) => [stateRoutes(ctx)], cli: [stateGroup] });
