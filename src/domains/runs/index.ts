/** Runs: receipts chained by svc_run_id, with Merkle proofs and audit evidence (/v1/runs/*). */
import { defineModule } from "../../module.ts";
import { runRoutes } from "./routes.ts";

export const runsModule = defineModule({ name: "runs", routes: (ctx) => [runRoutes(ctx)] });
