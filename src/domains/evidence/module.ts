/**
 * Evidence sources of truth: custodian endpoints, third-party attestation documents, on-chain ERC-20 supply and price sources, each retrieval fingerprinted and kept (shared by attestations, NAV, proof-of-backing and launches; docs/evidence.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { evidenceConfig } from "./config.ts";
import { registerEvidenceJobs } from "./retention.ts";

export const evidenceModule = defineModule({ name: "evidence", config: evidenceConfig, jobs: registerEvidenceJobs });
