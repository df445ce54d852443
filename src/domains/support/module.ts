/**
 * The support program: wallet-pair claims proven by an ed25519 and an EIP-191 signature over one nonce and a finalized transaction (/v1/support/*; docs/support.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { supportConfig } from "./config.ts";
import { supportRoutes } from "./routes.ts";

export const supportModule = defineModule({ name: "support", config: supportConfig, routes: (ctx) => [supportRoutes(ctx)] });
