/**
 * Escrow claims: claim inputs prepared from a signed receipt (/v1/escrow/*; docs/payments.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { escrowRoutes } from "./routes.ts";

export const escrowModule = defineModule({ name: "escrow", routes: (ctx) => [escrowRoutes(ctx)] });
