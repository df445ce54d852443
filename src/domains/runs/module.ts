/**
 * Runs: receipts chained by svc_run_id, with Merkle proofs and audit evidence (/v1/runs/*).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { runRoutes } from "./routes.ts";

export const runsModule = defineModule({ name: "runs", routes: (ctx) => [runRoutes(ctx)] });
