/**
 * The notary: signed receipts for work not run by svc (/v1/notary/*; docs/notary.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { notaryConfig } from "./config.ts";
import { notaryRoutes } from "./routes.ts";

export const notaryModule = defineModule({ name: "notary", config: notaryConfig, routes: (ctx) => [notaryRoutes(ctx)] });
