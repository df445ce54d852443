/**
 * The shapes other areas put in their own request and response schemas: a source as a caller
 * names it, a source as svc shows it back (never its credential), and a retrieval's reference.
 */
import { Type as T } from "@sinclair/typebox";
import { Nullable, Sha256Hex } from "../../core/schemas.ts";

export const SOURCE_KINDS = ["custodian", "third_party_attestation", "erc20_supply", "price"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/**
 * One flat object whatever the kind (a union would turn a missing field into an unreadable
 * validation error); prepareSource() checks which fields each kind needs and names the one missing.
 *   custodian / price: url (+ credential, sent as a bearer token) and pointer (RFC 6901, to the figure)
 *   third_party_attestation: url or document_b64 (the document itself); pointer optional
 *   erc20_supply: chain (a configured chain's name) and token (the contract address)
 */
export const EvidenceSourceInput = T.Object(
  {
    kind: T.Union(SOURCE_KINDS.map((k) => T.Literal(k)), { error: `must be one of ${SOURCE_KINDS.join(", ")}` }),
    label: T.Optional(T.String({ minLength: 1, maxLength: 120 })),
    url: T.Optional(T.String({ minLength: 1, maxLength: 2048 })),
    credential: T.Optional(T.String({ minLength: 1, maxLength: 4096 })),
    pointer: T.Optional(T.String({ maxLength: 512 })),
    document_b64: T.Optional(T.String({ minLength: 1, maxLength: 1_400_000 })),
    chain: T.Optional(T.String({ minLength: 1, maxLength: 64 })),
    token: T.Optional(T.String({ pattern: "^0x[0-9a-fA-F]{40}$", error: "must be a 0x-prefixed 20-byte contract address" })),
  },
  { additionalProperties: false },
);

/** A source as stored and shown back: the credential only as a flag. */
export const EvidenceSourceView = T.Object({
  kind: T.String(),
  label: Nullable(T.String()),
  source_ref: T.String(),
  pointer: Nullable(T.String()),
  chain: Nullable(T.String()),
  token: Nullable(T.String()),
  has_credential: T.Boolean(),
});

/** What a record cites: where the evidence came from, when, and the sha256 of the bytes retrieved. */
export const EvidenceReference = T.Object({
  evidence_id: T.String(),
  source_kind: T.String(),
  source_ref: T.String(),
  label: Nullable(T.String()),
  retrieved_at: T.String({ format: "date-time" }),
  content_sha256: Sha256Hex(),
});
