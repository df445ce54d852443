/**
 * TypeBox models of the escrow-claim routes: a closed request body and the exact shapes served,
 * so the OpenAPI document describes what is served. docs/payments.md "Escrow claims" explains
 * every field.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { Address, Signature } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;

const Bytes32 = t.String({ pattern: "^0x[0-9a-f]{64}$", description: "0x-hex of 32 bytes" });

export const CreateBody = t.Object(
  {
    receipt: t.String({
      minLength: 1,
      maxLength: L.MAX_RECEIPT_CHARS,
      pattern: "^[A-Za-z0-9_-]+$",
      error: "must be a receipt string: base64url of its JSON payload",
      description: "the receipt as svc returned it (the x-svc-receipt header, a settlement's `receipt`, GET /v1/receipts/:id)",
    }),
    signature: t.String({ pattern: "^0x[0-9a-fA-F]{130}$", error: "must be 0x-prefixed hex of 65 bytes (r ‖ s ‖ v)", description: "the receipt's signature" }),
  },
  closed,
);

export const Params = t.Object({ request_id: t.String({ minLength: 1, maxLength: 100 }) });

export const ListQuery = t.Object({
  limit: t.Optional(t.String({ description: `how many, newest first: a whole number from ${L.CLAIMS_LIMIT.min}, default ${L.CLAIMS_LIMIT.default}; above ${L.CLAIMS_LIMIT.max} is clamped to ${L.CLAIMS_LIMIT.max}` })),
});

export const ClaimFields = t.Object(
  {
    receipt_version: Nullable(Int()),
    account: t.String(),
    key_id: Nullable(t.String()),
    kind: Nullable(t.String()),
    status: Nullable(t.String()),
    resource: Nullable(t.String()),
    run_id: Nullable(t.String()),
    usage_event_id: Nullable(t.String()),
    cost_micro_usd: Nullable(MicroUsd()),
    settled_at: Nullable(t.String()),
    settled_at_unix: Nullable(Int({ minimum: 0, description: "settled_at in Unix seconds, as a contract compares times" })),
  },
  { ...closed, description: "the payload values a contract would release funds on, decoded from the signed message (null where the receipt has none)" },
);

export const ClaimInputs = t.Object(
  {
    request_id: t.String({ description: "the receipt's id: the metered request it settles" }),
    request_key: Bytes32,
    message: t.String({ pattern: "^0x([0-9a-f]{2})*$", description: "0x-hex of the receipt string's UTF-8 bytes: the message that was signed" }),
    digest: Bytes32,
    signature: Signature,
    signer: Address,
    v: Int({ minimum: 27, maximum: 28 }),
    r: Bytes32,
    s: Bytes32,
    fields: ClaimFields,
  },
  { ...closed, description: "request_key = keccak256(utf8(request_id)); digest = the EIP-191 hash of message, what ecrecover(digest, v, r, s) takes; signer = the address it recovers to" },
);

export const Claim = t.Object(
  {
    request_id: t.String(),
    claimable: t.Literal(true),
    claimable_means: t.String({ description: "what claimable:true states: signature recovery and payload binding only" }),
    inputs: ClaimInputs,
    receipt: t.String({ description: "the receipt the inputs were prepared from" }),
    created_at: t.String({ format: "date-time" }),
  },
  closed,
);

export const ClaimList = t.Object({ claims: t.Array(Claim, { maxItems: L.CLAIMS_LIMIT.max, description: "newest first" }) }, closed);
