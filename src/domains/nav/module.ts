/**
 * NAV records: private net-asset-value calculation over a sealed holdings book, reconciled against on-chain supply and price sources, signed and versioned, published on request (/v1/nav/*; docs/nav.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { navConfig } from "./config.ts";
import { navRoutes } from "./routes.ts";

export const navModule = defineModule({ name: "nav", config: navConfig, routes: (ctx) => navRoutes(ctx) });
