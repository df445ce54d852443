/** TypeBox models of GET /v1/attestation and of /v1/status's confidential block (closed objects: what attest.ts and posture.ts serve). */
import { t } from "elysia";
import { Nullable } from "../../core/schemas.ts";
import { VERIFIER_KINDS } from "./verifiers/kinds.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const Kind = t.String({ description: `the verifier that read its document: ${VERIFIER_KINDS.join(", ")}` });

const BackendAttestation = t.Object(
  {
    name: t.String(),
    kind: Kind,
    provider: Nullable(t.String({ description: "the inference provider it serves the confidential tier for" })),
    verified: t.Boolean(),
    measurement: Nullable(t.String({ description: "the verified measurement (lowercase hex); null unless verified" })),
    issued_at: Nullable(Time),
    nonce: t.String({ pattern: "^[0-9a-f]{64}$", description: "the fresh challenge svc sent; a verified document is bound to it" }),
    document_sha256: Nullable(t.String({ pattern: "^[0-9a-f]{64}$" })),
    document_b64: Nullable(t.String({ description: "the attestation document exactly as fetched (base64), to verify independently; null unless verified" })),
    error: Nullable(t.String({ description: "why it failed: what failed, never the endpoint's address" })),
  },
  closed,
);

export const Attestation = t.Object(
  {
    verified: t.Boolean({ description: "true when at least one backend is configured and every one verified" }),
    error: Nullable(t.String({ description: "\"no confidential backend is configured\", or which backends failed and why; null when verified" })),
    checked_at: Time,
    backends: t.Array(BackendAttestation),
    statement: t.String({ pattern: "^[A-Za-z0-9_-]+$", description: "base64url of the canonical JSON of this answer without the documents (type confidential-attestation)" }),
    signature: t.String({ pattern: "^0x[0-9a-fA-F]{130}$", description: "EIP-191 personal_sign of the statement string" }),
    signer: t.String({ pattern: "^0x[0-9a-fA-F]{40}$" }),
  },
  closed,
);

export const ConfidentialPostureSchema = t.Object(
  {
    verified: Nullable(t.Boolean({ description: "the last verification's outcome; null before the first" })),
    checked_at: Nullable(Time),
    error: Nullable(t.String()),
    backends: t.Array(
      t.Object(
        {
          name: t.String(),
          kind: Kind,
          provider: Nullable(t.String()),
          verified: Nullable(t.Boolean()),
          measurement: Nullable(t.String()),
        },
        closed,
      ),
    ),
  },
  { ...closed, description: "present only when confidential backends are configured: the last verification (GET /v1/attestation verifies live)" },
);
