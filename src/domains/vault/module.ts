/**
 * The vault registry: off-chain assets, holders' positions, attesters, sealed documents, transfers, distributions, view grants and wallet claims, with a hash-chained event log per asset (/v1/vault/*; docs/vault.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { registerVaultJobs } from "./anchoring.ts";
import { vaultConfig } from "./config.ts";
import { vaultPublicRoutes } from "./public-routes.ts";
import { vaultRoutes } from "./routes.ts";

export const vaultModule = defineModule({ name: "vault", config: vaultConfig, routes: (ctx) => [vaultRoutes(ctx), vaultPublicRoutes(ctx)], jobs: registerVaultJobs });
