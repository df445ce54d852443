/**
 * TypeBox models of the receipt routes: what the OpenAPI document shows and what Elysia checks
 * each answer against. Closed objects (an unexpected field is a bug, not an extension), except
 * where the served object is open by nature: a verified statement's payload (any statement svc
 * signs) and a usage unit bag.
 *
 * Address, Signature and Hex64 are shared with runs and anchors through the front door: the
 * receipts area owns the signer, so it owns how its outputs look.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { MAX_RECEIPT_CHARS } from "./verify.ts";

const closed = { additionalProperties: false } as const;

export const Time = t.String({ format: "date-time" });
/** An Ethereum address as svc prints it (EIP-55 mixed case). */
export const Address = t.String({ pattern: "^0x[0-9a-fA-F]{40}$", description: "0x address (EIP-55 checksummed)" });
/** EIP-191 personal_sign signature, r ‖ s ‖ v, 0x-hex. */
export const Signature = t.String({ pattern: "^0x[0-9a-fA-F]{130}$", description: "EIP-191 personal_sign signature: 0x-hex of 65 bytes (r ‖ s ‖ v)" });
/** A SHA-256 digest or Merkle node, lowercase hex. */
export const Hex64 = t.String({ pattern: "^[0-9a-f]{64}$" });
/** base64url (no padding) of canonical JSON: the signed string itself. */
export const Statement = t.String({ pattern: "^[A-Za-z0-9_-]+$", description: "base64url of the canonical JSON payload: the string that is signed" });

export const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

export const ListQuery = t.Object({
  kind: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "only receipts of this kind (inference, sandbox, …)" })),
  limit: t.Optional(t.String({ description: "page size: a whole number from 1, default 20; above 100 is clamped to 100" })),
  cursor: t.Optional(t.String({ description: "next_cursor of the previous page, for the same kind" })),
});

// ---- the signer --------------------------------------------------------------------------

export const SignerView = t.Object(
  { address: Address, valid_from: Time, valid_until: Nullable(t.String({ format: "date-time", description: "null for the current signer" })) },
  closed,
);

export const Pubkey = t.Object(
  {
    address: Address,
    scheme: t.Literal("eip191-personal-sign"),
    algorithm: t.Literal("secp256k1"),
    encoding: t.Literal("base64url(canonical JSON)"),
    canonical_json: t.String({ description: "the canonical JSON rules (spec §2.4)" }),
    signers: t.Array(SignerView, { description: "every signer this deployment has had, oldest first, with its validity window" }),
  },
  closed,
);

// ---- verification ------------------------------------------------------------------------

/** Shown in the OpenAPI document only: the route reads any JSON and answers valid:false for a wrong shape (never a 400). */
export const VerifyRequestBody = {
  required: true,
  content: {
    "application/json": {
      schema: {
        type: "object" as const,
        properties: {
          receipt: {
            type: "string" as const,
            pattern: "^[A-Za-z0-9_-]+$",
            maxLength: MAX_RECEIPT_CHARS,
            description: "base64url of the canonical JSON payload, exactly as issued (or any svc signed statement)",
          },
          signature: { type: "string" as const, pattern: "^(0x)?[0-9a-fA-F]{130}$", description: "0x-hex EIP-191 signature of the receipt string (65 bytes: r ‖ s ‖ v)" },
        },
        required: ["receipt", "signature"],
      },
    },
  },
};

/** Any statement svc signs: receipts, usage statements, mandate proofs, anchor log entries, credentials. */
const StatementPayload = t.Record(t.String(), t.Unknown(), { description: "the decoded statement; its fields depend on its type" });

export const Verification = t.Union([
  t.Object(
    {
      valid: t.Literal(true),
      recovered_address: Address,
      payload: StatementPayload,
      signer: t.Object({ address: Address, valid_from: Time, valid_until: Nullable(Time), current: t.Boolean() }, closed),
    },
    closed,
  ),
  t.Object(
    {
      valid: t.Literal(false),
      reason: t.String(),
      recovered_address: Nullable(Address),
      payload: Nullable(StatementPayload),
    },
    closed,
  ),
]);

// ---- receipts ----------------------------------------------------------------------------

const UnitValue = t.Union([Int(), t.String({ maxLength: 200 }), t.Boolean()]);
const AttestationValue = t.Union([Int(), t.String({ maxLength: 200 }), t.Boolean(), t.Array(t.String({ maxLength: 200 }), { maxItems: 32 })]);

/** The signed payload of a receipt (mint.ts), as decoded from the receipt string. */
export const ReceiptPayload = t.Object(
  {
    v: t.Literal(1),
    type: t.Literal("receipt"),
    id: t.String(),
    kind: t.String(),
    status: t.String(),
    account: t.String(),
    key_id: Nullable(t.String()),
    resource: Nullable(t.String()),
    run_id: Nullable(t.String()),
    cost_micro_usd: MicroUsd(),
    reserved_micro_usd: MicroUsd(),
    units: t.Record(t.String(), UnitValue, { description: "whole numbers, short strings and booleans only (metadata, never content)" }),
    usage_event_id: t.String(),
    reserved_at: Time,
    settled_at: Time,
    attestations: t.Optional(
      t.Record(t.String(), t.Record(t.String(), AttestationValue), { description: "named groups of fingerprints, roots and names (never content)" }),
    ),
  },
  closed,
);

/** GET /v1/receipts/:id and the share routes: the owner's view. */
export const Receipt = t.Object(
  {
    id: t.String(),
    kind: t.String(),
    status: t.String(),
    cost_micro_usd: MicroUsd(),
    run_id: Nullable(t.String()),
    key_id: Nullable(t.String()),
    created_at: Time,
    receipt: Statement,
    signature: Signature,
    signer: Address,
    shared: t.Boolean(),
    shared_at: Nullable(Time),
    share_url: Nullable(t.String({ description: "the public URL while shared" })),
    badge_url: Nullable(t.String({ description: "the SVG badge while shared" })),
    payload: ReceiptPayload,
  },
  closed,
);

export const ReceiptPage = t.Object(
  {
    receipts: t.Array(Receipt, { maxItems: 100, description: "newest first" }),
    next_cursor: t.Union([t.String(), t.Null()], { description: "pass as ?cursor= for the next page; null on the last" }),
  },
  closed,
);

/** GET /v1/receipts/shared/:id: what the world sees of a shared receipt. */
export const SharedReceipt = t.Object(
  {
    id: t.String(),
    kind: t.String(),
    status: t.String(),
    cost_micro_usd: MicroUsd(),
    created_at: Time,
    shared_at: Time,
    receipt: Statement,
    signature: Signature,
    signer: Address,
    payload: ReceiptPayload,
    badge_url: t.String(),
    verify: t.String({ description: "how to verify it" }),
  },
  closed,
);

/** The SVG is not JSON, so its content type is declared in the document directly (fresh per mount: the builder adds error statuses to it). */
export const badgeResponses = () => ({
  200: { description: "The badge: kind, verified or unverified, cost", content: { "image/svg+xml": { schema: { type: "string" as const } } } },
});
