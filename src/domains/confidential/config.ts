/** The confidential area's svc.toml section (confidential.*; docs/confidential.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import { ConfigError, type ConfigPart } from "../../config.ts";
import { VERIFIER_KINDS } from "./verifiers/kinds.ts";

const Backend = T.Object(
  {
    /** Shown in GET /v1/attestation and /v1/status; names the backend, never where it is. */
    name: T.String({ pattern: "^[a-z0-9][a-z0-9_.-]{0,63}$" }),
    /** Which verifier reads its attestation document (verifiers/kinds.ts). */
    kind: T.Union(VERIFIER_KINDS.map((k) => T.Literal(k))),
    /** Where the backend serves its attestation document; never shown, since operators put tokens in query strings. */
    attestation_url: T.String({ pattern: "^https?://", maxLength: 2000 }),
    /** The measurements (hex digests of the code and configuration the TEE runs) accepted; anything else fails. */
    expected_measurements: T.Array(T.String({ pattern: "^[0-9a-fA-F]{32,128}$" }), { minItems: 1, maxItems: 32 }),
    /** signed_report: the Ed25519 public key its reports are signed with, 32 bytes as 64 hex characters. */
    public_key: T.Optional(T.String({ pattern: "^[0-9a-fA-F]{64}$" })),
    /** The inference provider (inference.providers[].name) this backend serves the confidential tier for, if any. */
    provider: T.Optional(T.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const ConfidentialSection = T.Object(
  {
    /** The backends serving the confidential privacy tier; none (the default): GET /v1/attestation says so. */
    backends: T.Array(Backend, { maxItems: 16 }),
    /** One backend's whole attestation fetch (connect, answer, body). */
    timeout_ms: T.Integer({ minimum: 100, maximum: 60_000 }),
    /**
     * How long one verification answers GET /v1/attestation: a public route must not turn every
     * visitor into a round of fetches on the backends. 0: every request verifies afresh.
     */
    max_age_secs: T.Integer({ minimum: 0, maximum: 3600 }),
    /** How often `svc serve` verifies again on its own, so /v1/status's confidential block stays current. */
    check_interval_secs: T.Integer({ minimum: 10, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

export type ConfidentialBackend = Static<typeof Backend>;

declare module "../../config.ts" {
  interface DomainConfig {
    confidential: Static<typeof ConfidentialSection>;
  }
}

export const confidentialConfig: ConfigPart = {
  sections: { confidential: { schema: ConfidentialSection, default: { backends: [], timeout_ms: 5_000, max_age_secs: 60, check_interval_secs: 300 } } },
  env: [{ name: "SVC_CONFIDENTIAL_MAX_AGE_SECS", path: "confidential.max_age_secs", type: "integer" }],
  check(config) {
    const seen = new Set<string>();
    config.confidential.backends.forEach((b, i) => {
      if (seen.has(b.name)) throw new ConfigError(`confidential.backends[${i}].name: "${b.name}" is used twice`);
      seen.add(b.name);
      if (b.kind === "signed_report" && b.public_key === undefined) throw new ConfigError(`confidential.backends[${i}].public_key is required for kind signed_report`);
    });
  },
};
