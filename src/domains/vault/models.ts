/**
 * TypeBox models of the /v1/vault routes: closed request bodies (an unknown field is refused and
 * named, never stripped) and the exact shapes served, so the OpenAPI document describes what is
 * served. docs/vault.md explains every field.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { AnchorBlockSchema } from "../anchors/index.ts";
import { Address, Hex64, Signature } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const ADDRESS = "^0x[0-9a-fA-F]{40}$";
const SIGNATURE = "^0x[0-9a-fA-F]{130}$";

const Text = (max: number, description?: string) =>
  t.String({ minLength: 1, maxLength: max, pattern: "\\S", error: `must be 1 to ${max} characters, not all whitespace`, ...(description ? { description } : {}) });
const Memo = t.Optional(Nullable(Text(L.MAX_MEMO_CHARS, "a note for the owner's records; never on the chain or in an event")));
const Amount = (description: string) => MicroUsd({ minimum: 1, description: `integer micro-USD: ${description}` });
const IdParam = t.String({ minLength: 1, maxLength: 100 });
const Ttl = (rule: { min: number; max: number; default: number }, what: string) =>
  t.Optional(Int({ minimum: rule.min, maximum: rule.max, description: `seconds until the ${what} expires: ${rule.min} to ${rule.max}, default ${rule.default}` }));

// ── parameters and queries ────────────────────────────────────────────────────────────────────

export const AssetParams = t.Object({ id: IdParam });
export const HolderParams = t.Object({ id: IdParam, holder_id: IdParam });
export const DocumentParams = t.Object({ id: IdParam, doc_id: IdParam });
export const GrantParams = t.Object({ id: IdParam, grant_id: IdParam });
export const TokenParams = t.Object({ token: t.String({ minLength: 1, maxLength: 200 }) });
export const ViewDocumentParams = t.Object({ token: t.String({ minLength: 1, maxLength: 200 }), doc_id: IdParam });

export const AssetFilter = t.Object({ asset_id: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "only this asset's records" })) });

export const ChainQuery = t.Object({
  before_seq: t.Optional(t.String({ description: "entries with a lower seq (the previous page's next_before_seq); absent: from the head" })),
  limit: t.Optional(t.String({ description: `page size: ${L.CHAIN_LIMIT.min} to ${L.CHAIN_LIMIT.max}, default ${L.CHAIN_LIMIT.default}; above the maximum is clamped` })),
});

// ── request bodies ────────────────────────────────────────────────────────────────────────────

export const AssetBody = t.Object(
  {
    name: Text(L.MAX_NAME_CHARS),
    symbol: t.Optional(Nullable(t.String({ pattern: "^[A-Z0-9][A-Z0-9.-]{0,15}$", error: "must be 1 to 16 characters: A-Z, 0-9, . and -" }))),
    description: t.Optional(Nullable(Text(L.MAX_DESCRIPTION_CHARS))),
    total_micro_usd: Amount("the asset's declared size; issues to holders never exceed it"),
  },
  closed,
);

export const HolderBody = t.Object(
  {
    name: Text(L.MAX_NAME_CHARS, "how the issuer names the holder (shown to view grants with the positions scope)"),
    email: t.Optional(
      Nullable(
        t.String({
          maxLength: L.MAX_EMAIL_CHARS,
          pattern: "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$",
          error: "must be an email address",
          description: "unique within the asset (case-insensitive); the owner's records only",
        }),
      ),
    ),
    amount_micro_usd: t.Optional(Amount("issued to the new holder at once")),
    memo: Memo,
  },
  closed,
);

export const IssueBody = t.Object({ amount_micro_usd: Amount("added to the holder's position, within the asset's unissued size"), memo: Memo }, closed);

export const ClaimBody = t.Object({ expires_in_secs: Ttl(L.CLAIM_TTL, "claim") }, closed);

const Role = t.Union(L.ATTESTER_ROLES.map((r) => t.Literal(r)));

export const AttesterBody = t.Object(
  {
    name: Text(L.MAX_NAME_CHARS),
    roles: t.Array(Role, { minItems: 1, maxItems: L.ATTESTER_ROLES.length, error: `must be 1 or more of ${L.ATTESTER_ROLES.join(", ")}` }),
    wallet: t.String({ pattern: ADDRESS, error: "must be a 0x-prefixed 20-byte hex address", description: "the address the attester signs statements with" }),
  },
  closed,
);

export const AttestationBody = t.Object(
  {
    attester_id: IdParam,
    statement: Text(L.MAX_STATEMENT_CHARS, "the attester's words, exactly as signed"),
    signature: t.String({ pattern: SIGNATURE, error: "must be 0x-prefixed hex of 65 bytes (r ‖ s ‖ v)", description: "the attester's EIP-191 signature of signed_message (docs/vault.md)" }),
  },
  closed,
);

export const DocumentBody = t.Object(
  {
    name: Text(L.MAX_NAME_CHARS),
    content_type: t.String({ maxLength: 100, pattern: "^[a-z]+/[a-z0-9.+-]+$", error: "must be a media type such as application/pdf" }),
    content_b64: t.String({ minLength: 1, maxLength: L.MAX_DOCUMENT_B64_CHARS, description: `the bytes, standard base64 with padding; at most ${L.MAX_DOCUMENT_BYTES} bytes decoded` }),
  },
  closed,
);

const Scope = t.Union(L.VIEW_SCOPES.map((s) => t.Literal(s)));

export const GrantBody = t.Object(
  {
    scopes: t.Array(Scope, { minItems: 1, maxItems: L.VIEW_SCOPES.length, error: `must be 1 or more of ${L.VIEW_SCOPES.join(", ")}` }),
    label: t.Optional(Nullable(Text(L.MAX_NAME_CHARS, "who the grant is for, for the owner's list"))),
    expires_in_secs: Ttl(L.GRANT_TTL, "grant"),
  },
  closed,
);

export const TransferBody = t.Object(
  {
    asset_id: IdParam,
    from_holder_id: IdParam,
    to_holder_id: IdParam,
    amount_micro_usd: Amount("moved from one position to the other; never more than the sender holds"),
    memo: Memo,
  },
  closed,
);

export const DistributionBody = t.Object(
  { asset_id: IdParam, amount_micro_usd: Amount("paid to the holders pro rata to their positions (floor); the remainder stays with the issuer"), memo: Memo },
  closed,
);

export const BindBody = t.Object(
  {
    wallet: t.String({ pattern: ADDRESS, error: "must be a 0x-prefixed 20-byte hex address", description: "the wallet being bound" }),
    signature: t.String({ pattern: SIGNATURE, error: "must be 0x-prefixed hex of 65 bytes (r ‖ s ‖ v)", description: "the wallet's EIP-191 signature of the claim's message" }),
  },
  closed,
);

// ── responses ─────────────────────────────────────────────────────────────────────────────────

const Head = t.Object({ seq: Int({ minimum: 0 }), hash: Hex64 }, { ...closed, description: "the chain's newest entry (seq 0 and 64 zeros before the first)" });
const ChainSeq = Int({ minimum: 1, description: "the chain entry that records this change" });
const Commitment = t.String({ pattern: "^[0-9a-f]{64}$", description: "the chain entry's amount_commitment: SHA-256(canonical {amount_micro_usd, salt})" });
const Salt = t.String({ pattern: "^[0-9a-f]{64}$", description: "opens amount_commitment; the owner's to share" });

export const Asset = t.Object(
  {
    id: t.String(),
    name: t.String(),
    symbol: Nullable(t.String()),
    description: Nullable(t.String()),
    total_micro_usd: MicroUsd(),
    issued_micro_usd: MicroUsd(),
    unissued_micro_usd: MicroUsd(),
    holders: Int({ minimum: 0 }),
    chain_head: Head,
    created_at: Time,
  },
  closed,
);
export const AssetList = t.Object({ assets: t.Array(Asset, { description: "oldest first, not capped" }) }, closed);

export const Transfer = t.Object(
  {
    id: t.String(),
    asset_id: t.String(),
    kind: t.Union([t.Literal("issue"), t.Literal("transfer")]),
    from_holder_id: Nullable(t.String({ description: "null for an issue (from the issuer)" })),
    to_holder_id: t.String(),
    amount_micro_usd: MicroUsd(),
    memo: Nullable(t.String()),
    chain_seq: ChainSeq,
    amount_commitment: Commitment,
    amount_salt: Salt,
    created_at: Time,
  },
  closed,
);
export const TransferList = t.Object({ transfers: t.Array(Transfer, { maxItems: L.TRANSFERS_CAP, description: `issues and transfers, newest first, at most ${L.TRANSFERS_CAP}` }) }, closed);

const holderFields = {
  id: t.String(),
  asset_id: t.String(),
  name: t.String(),
  email: Nullable(t.String()),
  wallet: Nullable(t.String({ description: "bound by the holder through a claim; null until then" })),
  position_micro_usd: MicroUsd(),
  distributed_micro_usd: MicroUsd({ description: "the holder's shares of every distribution so far" }),
  claimed_at: Nullable(Time),
  created_at: Time,
  updated_at: Time,
};
export const Holder = t.Object(holderFields, closed);
export const HolderCreated = t.Object({ ...holderFields, issue: Nullable(Transfer) }, closed);
export const HolderList = t.Object(
  {
    holders: t.Array(Holder, { description: "oldest first, not capped" }),
    asset_id: t.String(),
    total_micro_usd: MicroUsd({ description: "the asset's declared size" }),
    pending_claims_micro_usd: MicroUsd({ description: "positions of holders who have not yet bound a wallet" }),
    issued_micro_usd: MicroUsd({ description: "issued to holders so far (the sum of every position)" }),
  },
  closed,
);

const distributionFields = {
  id: t.String(),
  asset_id: t.String(),
  amount_micro_usd: MicroUsd({ description: "what the issuer set out to pay" }),
  distributed_micro_usd: MicroUsd({ description: "the sum of the shares" }),
  remainder_micro_usd: MicroUsd({ description: "amount − distributed: what flooring left with the issuer" }),
  basis_micro_usd: MicroUsd({ description: "the sum of the positions the shares were computed over" }),
  holders: Int({ minimum: 1, description: "holders with a position at that moment" }),
  memo: Nullable(t.String()),
  chain_seq: ChainSeq,
  amount_commitment: Commitment,
  amount_salt: Salt,
  created_at: Time,
};
export const Distribution = t.Object(distributionFields, closed);
export const DistributionDetail = t.Object(
  {
    ...distributionFields,
    shares: t.Array(t.Object({ holder_id: t.String(), position_micro_usd: MicroUsd(), amount_micro_usd: MicroUsd() }, closed), { description: "one per holder with a position, in holder order" }),
  },
  closed,
);
export const DistributionList = t.Object(
  { distributions: t.Array(Distribution, { maxItems: L.DISTRIBUTIONS_CAP, description: `newest first, at most ${L.DISTRIBUTIONS_CAP}` }) },
  closed,
);

const Roles = t.Array(t.String());
export const Attester = t.Object({ id: t.String(), asset_id: t.String(), name: t.String(), roles: Roles, wallet: Address, created_at: Time }, closed);
export const AttesterList = t.Object(
  { attesters: t.Array(Attester, { description: "oldest first, not capped" }), asset_id: t.String(), roles: t.Array(t.String(), { description: "the roles an attester may hold" }) },
  closed,
);

export const Attestation = t.Object(
  {
    id: t.String(),
    asset_id: t.String(),
    attester_id: t.String(),
    attester_name: t.String(),
    roles: Roles,
    statement: t.String(),
    statement_sha256: Hex64,
    signed_message: t.String({ description: "what the attester signed: the statement bound to the asset" }),
    signature: Signature,
    signer: Address,
    chain_seq: ChainSeq,
    recorded_at: Time,
  },
  closed,
);
export const AttestationList = t.Object(
  { attestations: t.Array(Attestation, { description: "oldest first, not capped" }), asset_id: t.String(), trust_model: t.String({ description: "what svc checked, and what it does not vouch for" }) },
  closed,
);

const documentFields = {
  id: t.String(),
  asset_id: t.String(),
  name: t.String(),
  content_type: t.String(),
  size_bytes: Int({ minimum: 1 }),
  sha256: Hex64,
  chain_seq: ChainSeq,
  created_at: Time,
};
export const Document = t.Object(documentFields, closed);
export const DocumentContent = t.Object({ ...documentFields, content_b64: t.String({ description: "the bytes, standard base64" }) }, closed);
export const DocumentList = t.Object({ documents: t.Array(Document, { description: "oldest first, not capped" }), asset_id: t.String() }, closed);

const ScopeList = t.Array(t.String());
const grantFields = {
  id: t.String(),
  asset_id: t.String(),
  label: Nullable(t.String()),
  scopes: ScopeList,
  token_prefix: t.String({ description: "the token's first characters, to tell grants apart" }),
  status: t.Union([t.Literal("active"), t.Literal("expired"), t.Literal("revoked")]),
  expires_at: Time,
  revoked_at: Nullable(Time),
  last_used_at: Nullable(Time),
  created_at: Time,
};
export const Grant = t.Object(grantFields, closed);
export const GrantCreated = t.Object({ ...grantFields, token: t.String({ pattern: "^vview_", description: "the view token; shown this once" }) }, closed);
export const GrantList = t.Object({ grants: t.Array(Grant, { description: "oldest first, not capped" }) }, closed);

const ClaimStatus = t.Union([t.Literal("open"), t.Literal("bound"), t.Literal("superseded"), t.Literal("expired")]);
const claimFields = {
  id: t.String(),
  asset_id: t.String(),
  holder_id: t.String(),
  status: ClaimStatus,
  wallet: Nullable(Address),
  message: t.String({ description: "what the holder signs with the wallet" }),
  expires_at: Time,
  bound_at: Nullable(Time),
  created_at: Time,
};
export const Claim = t.Object(claimFields, closed);
export const ClaimCreated = t.Object({ ...claimFields, token: t.String({ pattern: "^vclaim_", description: "the claim token for the holder; shown this once" }) }, closed);
export const ClaimList = t.Object({ claims: t.Array(Claim, { description: "newest first, not capped" }) }, closed);

export const PublicClaim = t.Object(
  {
    asset_name: t.String(),
    status: ClaimStatus,
    wallet: Nullable(Address),
    message: t.String({ description: "sign this with the wallet (EIP-191 personal_sign), then POST {wallet, signature}" }),
    expires_at: Time,
    bound_at: Nullable(Time),
  },
  { ...closed, description: "never an amount or a position" },
);

const ChainEntry = t.Object(
  {
    v: t.Literal(1),
    asset_id: t.String(),
    seq: Int({ minimum: 1 }),
    type: t.String(),
    at: Time,
    refs: t.Record(t.String(), Nullable(t.String())),
    amount_commitment: Nullable(Hex64),
  },
  closed,
);
export const ChainPage = t.Object(
  {
    asset_id: t.String(),
    head: Head,
    entries: t.Array(
      t.Object({ seq: Int({ minimum: 1 }), type: t.String(), entry: ChainEntry, prev_hash: Hex64, hash: Hex64, canonical: t.String({ description: "the exact line hashed" }) }, closed),
      { description: "newest first" },
    ),
    next_before_seq: Nullable(Int({ minimum: 1, description: "pass as before_seq for the previous page; null at the first entry" })),
    hash_alg: t.String(),
    commitment_alg: t.String(),
  },
  closed,
);

export const Anchors = t.Object(
  {
    asset_id: t.String(),
    head: Head,
    head_statement: t.Object({ statement: t.String(), signature: Signature, signer: Address }, { ...closed, description: "svc's signed statement of the head now (type vault-chain-head)" }),
    anchored: Nullable(
      t.Object(
        {
          seq: Int({ minimum: 1 }),
          hash: Hex64,
          state: t.Union([t.Literal("pending"), t.Literal("batched"), t.Literal("anchored")]),
          root: Nullable(Hex64),
          leaf_index: Nullable(Int({ minimum: 0 })),
          tree_size: Nullable(Int({ minimum: 1 })),
          leaf_hash: Hex64,
          proof: t.Array(Hex64),
          block: Nullable(AnchorBlockSchema),
        },
        { ...closed, description: "the newest entry under a Merkle root; null until the first pass" },
      ),
    ),
    pending_entries: Int({ minimum: 0, description: "entries waiting for the next anchoring pass" }),
    merkle_alg: t.String(),
    verify: t.String(),
  },
  closed,
);

export const View = t.Object(
  {
    asset: t.Object(
      { id: t.String(), name: t.String(), symbol: Nullable(t.String()), description: Nullable(t.String()), total_micro_usd: MicroUsd(), issued_micro_usd: MicroUsd() },
      closed,
    ),
    scopes: ScopeList,
    expires_at: Time,
    chain_head: Head,
    holders: Nullable(t.Array(t.Object({ id: t.String(), name: t.String(), position_micro_usd: MicroUsd(), claimed: t.Boolean() }, closed), { description: "positions scope; null without it" })),
    transfers: Nullable(t.Array(Transfer, { description: "activity scope; null without it" })),
    distributions: Nullable(t.Array(Distribution, { description: "activity scope; null without it" })),
    attestations: Nullable(t.Array(Attestation, { description: "attestations scope; null without it" })),
    documents: Nullable(t.Array(Document, { description: "documents scope (metadata; bytes at …/documents/:doc_id); null without it" })),
  },
  closed,
);
