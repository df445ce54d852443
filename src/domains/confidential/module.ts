/**
 * Confidential computing posture: the attestation of the backends serving the confidential privacy tier, through a verifier interface (GET /v1/attestation, the confidential block of /v1/status; docs/confidential.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { newConfidentialState, registerConfidentialJobs } from "./attest.ts";
import { confidentialConfig } from "./config.ts";
import { attestationRoutes } from "./routes.ts";

export const confidentialModule = defineModule({
  name: "confidential",
  config: confidentialConfig,
  wire(ctx) {
    ctx.confidential = newConfidentialState();
  },
  routes: (ctx) => [attestationRoutes(ctx)],
  jobs: registerConfidentialJobs,
});
