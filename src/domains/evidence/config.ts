/** The evidence area's svc.toml section (evidence.*; docs/evidence.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const EvidenceSection = T.Object(
  {
    /** One retrieval's whole budget (connect, answer, body). A source slower than this is UNAVAILABLE, never waited on. */
    timeout_ms: T.Integer({ minimum: 100, maximum: 120_000 }),
    /** Largest answer kept; a larger one is UNAVAILABLE (a custodian statement is small; a huge body is a mistake or an attack). */
    max_body_bytes: T.Integer({ minimum: 1024, maximum: 16 * 1024 * 1024 }),
    /**
     * Days a retrieval's bytes are kept (0: forever). Scheduled checks retrieve again and again;
     * after this, only the reference and its fingerprint remain (records citing it stay verifiable).
     */
    body_retention_days: T.Integer({ minimum: 0, maximum: 36_500 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    evidence: Static<typeof EvidenceSection>;
  }
}

export const evidenceConfig: ConfigPart = {
  sections: { evidence: { schema: EvidenceSection, default: { timeout_ms: 10_000, max_body_bytes: 1024 * 1024, body_retention_days: 90 } } },
  env: [
    { name: "SVC_EVIDENCE_TIMEOUT_MS", path: "evidence.timeout_ms", type: "integer" },
    { name: "SVC_EVIDENCE_BODY_RETENTION_DAYS", path: "evidence.body_retention_days", type: "integer" },
  ],
};
