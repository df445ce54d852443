/**
 * Payment requests: signed requests for an on-chain transfer, settled by its transaction (/v1/pay/*; docs/payments.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { payRoutes } from "./routes.ts";

export const payModule = defineModule({ name: "pay", routes: (ctx) => [payRoutes(ctx)] });
