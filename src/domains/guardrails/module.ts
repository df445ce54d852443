/**
 * Guardrails: detectors enforced in the inference pipeline, the findings they stamp on
 * receipts, and the account's effective policies (/v1/guardrails, /v1/policies).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { guardrailRoutes, policyRoutes } from "./routes.ts";

export const guardrailsModule = defineModule({ name: "guardrails", routes: (ctx) => [guardrailRoutes(ctx), policyRoutes(ctx)] });
