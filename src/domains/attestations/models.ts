/**
 * TypeBox models of /v1/attestations and /v1/assets/:asset_id/verification: a closed check body
 * (an unknown field is refused and named) and the exact shapes served (service.ts and view.ts
 * build them). docs/attestations.md explains every field.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { EvidenceReference, EvidenceSourceInput, EvidenceSourceView } from "../evidence/index.ts";
import { Address, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";
import { CHECK_STATUSES, CLAIM_KINDS } from "./rules.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const Units = t.String({ pattern: "^\\d+$", description: `integer millionths of a unit (unit_scale ${L.UNIT_SCALE}, floored), as text: supplies exceed 2^53` });
const mustBe = (values: readonly string[]) => ({ error: `must be one of ${values.join(", ")}` });
// Spelled out (not mapped from the constants) so the static types stay literal unions.
const ClaimKind = t.Union([t.Literal("reserves_cover_supply"), t.Literal("reported_supply_matches")], mustBe(CLAIM_KINDS));
export const CheckStatus = t.Union([t.Literal("VERIFIED"), t.Literal("DISCREPANCY"), t.Literal("UNAVAILABLE")], mustBe(CHECK_STATUSES));
export const ReadStatus = t.Union([t.Literal("VERIFIED"), t.Literal("DISCREPANCY"), t.Literal("UNAVAILABLE"), t.Literal("STALE")]);

export const ClaimInput = t.Object(
  {
    kind: ClaimKind,
    tolerance_bps: t.Optional(Int({ minimum: 0, maximum: L.MAX_TOLERANCE_BPS, description: "allowed shortfall or difference in basis points of the on-chain supply; default 0" })),
    max_age_secs: t.Optional(
      Int({ minimum: L.MIN_MAX_AGE_SECS, maximum: L.MAX_MAX_AGE_SECS, description: `freshness window: a VERIFIED version read later reports STALE; default ${L.DEFAULT_MAX_AGE_SECS}` }),
    ),
    declared_figure: t.Optional(
      t.String({
        pattern: "^\\d{1,30}(\\.\\d{1,30})?$",
        error: "must be a non-negative decimal number as text, e.g. \"1000000.25\"",
        description: "an issuer declaration: the reserves (or reported supply) as the issuer states it, instead of sources that report it. A record drawing on it is never public",
      }),
    ),
  },
  closed,
);

export const CheckBody = t.Object(
  {
    asset_id: t.String({ pattern: L.ASSET_ID_PATTERN, error: "must be 1-128 characters: letters, digits, '.', '_', ':' or '-', starting with a letter or digit", description: "chosen by the caller, scoped to the account; a check of an asset_id already used makes its next version" }),
    subject_ref: t.String({ minLength: 1, maxLength: L.MAX_SUBJECT_REF_CHARS, description: "what is attested, in the caller's words (a token name, a fund, a contract)" }),
    public: t.Optional(t.Boolean({ description: "publish the latest version at GET /v1/assets/:asset_id/verification; default false. Refused for a record drawing on an issuer declaration or sealed data" })),
    claim: ClaimInput,
    sources: t.Array(EvidenceSourceInput, {
      minItems: 1,
      maxItems: L.MAX_SOURCES,
      description: "exactly one erc20_supply (the on-chain supply); custodian and third_party_attestation sources with a pointer report the figure (summed); a third_party_attestation without a pointer is a supporting document",
    }),
  },
  closed,
);

export const Params = t.Object({ asset_id: t.String({ minLength: 1, maxLength: 200 }) });

export const HistoryQuery = t.Object({
  limit: t.Optional(t.String({ description: `how many versions, newest first: ${L.HISTORY_LIMIT.min}-${L.HISTORY_LIMIT.max}, default ${L.HISTORY_LIMIT.default}; not clamped: above ${L.HISTORY_LIMIT.max} is refused` })),
});

export const EvidenceQuery = t.Object({
  include_body: t.Optional(t.Union([t.Literal("true"), t.Literal("false")], { description: "true: each retrieval's kept bytes, base64" })),
  seq: t.Optional(t.String({ pattern: "^[1-9]\\d{0,8}$", description: "a version's seq; default the latest" })),
});

export const Claim = t.Object(
  { kind: ClaimKind, tolerance_bps: t.Integer(), max_age_secs: t.Integer(), declared_figure: Nullable(t.String()) },
  closed,
);

export const Reconciliation = t.Object(
  {
    reported_from: t.Union([t.Literal("sources"), t.Literal("issuer_declaration")]),
    reported_micro_units: Units,
    onchain_supply_micro_units: Units,
    delta_bps: Nullable(t.Integer({ description: "(reported − supply) × 10000 / supply, truncated toward zero, clamped to ±1e9; null when the supply is 0" })),
    tolerance_bps: t.Integer(),
    within_tolerance: t.Boolean(),
    unit_scale: t.Integer(),
    rounding: t.Literal("floor"),
  },
  closed,
);

export const Unavailable = t.Object({ source_kind: t.String(), source_ref: t.String(), label: Nullable(t.String()), reason: t.String() }, closed);

export const Freshness = t.Object({ age_secs: t.Integer(), max_age_secs: t.Integer(), fresh: t.Boolean() }, closed);

export const AttestationPayload = t.Object(
  {
    v: t.Literal(1),
    type: t.Literal("asset-attestation"),
    attestation_id: t.String(),
    asset_id: t.String(),
    subject_ref: t.String(),
    seq: t.Integer(),
    supersedes: Nullable(t.String()),
    status: CheckStatus,
    claim: t.Object({ kind: t.String(), tolerance_bps: t.Integer(), max_age_secs: t.Integer(), issuer_declared: t.Boolean() }, closed),
    reconciliation: Nullable(Reconciliation),
    evidence_references: t.Array(EvidenceReference),
    unavailable: t.Array(Unavailable),
    reasons: t.Array(t.String()),
    draws_on_sealed_data: t.Boolean(),
    public: t.Boolean(),
    checked_at: Time,
    expires_at: Time,
    issued_at: Time,
    methodology_version: t.String(),
    verifier_version: t.String(),
    charge_receipt_id: t.String(),
  },
  { ...closed, description: "what is signed: the statement is base64url of its canonical JSON" },
);

const signed = {
  receipt: { ...Statement, description: "base64url canonical JSON of payload: the string signed (EIP-191)" },
  signature: Signature,
  signer: Address,
  payload: AttestationPayload,
  verify: t.String(),
};

export const Charge = t.Object(
  { receipt_id: t.String(), receipt: Statement, signature: Signature, signer: Address, cost_micro_usd: MicroUsd({ description: "what the check was billed" }) },
  { ...closed, description: "the metered check's own receipt (kind attestation_check): same price whatever the status" },
);

const common = {
  attestation_id: t.String({ description: "att_…: one version" }),
  asset_id: t.String(),
  seq: t.Integer({ minimum: 1 }),
  subject_ref: t.String(),
  status: ReadStatus,
  status_at_check: CheckStatus,
  sources: t.Array(EvidenceSourceView),
  reconciliation: Nullable(Reconciliation),
  evidence_references: t.Array(EvidenceReference),
  unavailable: t.Array(Unavailable),
  reasons: t.Array(t.String()),
  checked_at: Time,
  expires_at: Time,
  freshness: Freshness,
  methodology_version: t.String(),
  verifier_version: t.String(),
};

export const AttestationRecord = t.Object(
  {
    ...common,
    claim: Claim,
    public: t.Boolean(),
    public_url: Nullable(t.String({ description: "the unauthenticated view, while this asset's latest version is public" })),
    supersedes: Nullable(t.String({ description: "the attestation_id of the version this one superseded" })),
    latest: t.Boolean(),
    ...signed,
    charge: Charge,
  },
  closed,
);

export const History = t.Object(
  {
    versions: t.Array(AttestationRecord, { maxItems: L.HISTORY_LIMIT.max, description: "newest first" }),
    asset_id: t.String(),
    subject_ref: t.String(),
    note: t.String(),
    disclaimer: t.String(),
  },
  closed,
);

export const EvidenceItem = t.Object(
  {
    ...EvidenceReference.properties,
    body: t.Optional(
      Nullable(
        t.Object({ content_type: t.String(), content_sha256: t.String(), body_b64: t.String() }, { ...closed, description: "the exact bytes retrieved; null once dropped" }),
      ),
    ),
  },
  closed,
);

export const EvidenceList = t.Object(
  { attestation_id: t.String(), asset_id: t.String(), seq: t.Integer(), evidence: t.Array(EvidenceItem), unavailable: t.Array(Unavailable) },
  closed,
);

export const PublicVerification = t.Object(
  {
    ...common,
    claim: t.Object({ kind: ClaimKind, tolerance_bps: t.Integer(), max_age_secs: t.Integer() }, closed),
    ...signed,
    disclaimer: t.String(),
  },
  closed,
);
