/**
 * The paid-services marketplace: services sold per call over x402, paid buyer-to-seller on chain, receipted (/v1/services/*; docs/services.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { servicesConfig } from "./config.ts";
import { servicesRoutes } from "./routes.ts";

export const servicesModule = defineModule({ name: "services", config: servicesConfig, routes: (ctx) => servicesRoutes(ctx) });
