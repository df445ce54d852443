/**
 * TypeBox models of /v1/calls: closed request bodies (an unknown field is refused and named)
 * and the exact shapes served (service.ts and anchoring.ts build them), so the OpenAPI document
 * describes what is served. Sizes come from limits.ts; docs/calls.md explains them.
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";
import { AnchorBlockSchema } from "../anchors/index.ts";
import { Address, Hex64, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const Hex = (bytes: number, what: string, description: string) =>
  t.String({ pattern: `^[0-9a-fA-F]{${bytes * 2}}$`, error: `must be ${what}: ${bytes * 2} hex characters`, description });

const Text = (description: string) =>
  t.String({ minLength: 1, maxLength: L.MAX_TEXT_CHARS, description: `the text committed to: 1-${L.MAX_TEXT_CHARS} characters, hashed as its UTF-8 bytes exactly as sent; ${description}` });

export const CommitBody = t.Object(
  {
    text: t.Optional(Text("svc makes the salt and keeps text and salt sealed until reveal")),
    commitment: t.Optional(
      Hex(
        32,
        "a sha256 digest",
        `a commitment made by the caller: sha256 hex of a ${L.SALT_BYTES}-byte salt followed by the text's UTF-8 bytes; the caller keeps text and salt and supplies them at reveal`,
      ),
    ),
  },
  { ...closed, description: "exactly one of text and commitment" },
);

export const RevealBody = t.Optional(
  t.Object(
    {
      text: t.Optional(Text("as committed")),
      salt_hex: t.Optional(Hex(L.SALT_BYTES, `${L.SALT_BYTES} bytes`, `the ${L.SALT_BYTES}-byte salt in hex`)),
    },
    { ...closed, description: "a call committed with a bare commitment: its text and salt_hex (both); a call committed with text: nothing (svc holds them)" },
  ),
);

export const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

const CallState = t.Union([t.Literal("committed"), t.Literal("revealed")]);
const CallMode = t.Union([t.Literal("text"), t.Literal("commitment")], { description: "text: svc made the salt and holds text and salt; commitment: the caller holds them until reveal" });
const AnchorState = t.Union([t.Literal("pending"), t.Literal("batched"), t.Literal("anchored")], {
  description: "pending: not yet under a root (the next anchoring pass puts it there); batched: under a root none of whose anchors is anchored yet; anchored: under a root with an anchor in status anchored",
});

export const CallReceipt = t.Object(
  { receipt_id: t.String(), receipt: Statement, signature: Signature, signer: Address },
  { ...closed, description: "the commit's signed receipt (kind sealed_call): its attestations.commitment states the commitment and the mode" },
);

export const CallAnchor = t.Object(
  {
    state: AnchorState,
    root: Nullable(Hex64),
    leaf_index: Nullable(Int({ minimum: 0 })),
    tree_size: Nullable(Int({ minimum: 1 })),
    leaf_hash: t.String({ pattern: "^[0-9a-f]{64}$", description: "SHA-256(0x00 || the commit's receipt string): the call's leaf" }),
    proof: t.Array(Hex64, { description: "inclusion proof: sibling hashes, leaf to root (RFC 9162 §2.1.3); empty while pending" }),
    merkle_alg: t.String(),
    block: Nullable(AnchorBlockSchema),
    verify: t.String(),
  },
  { ...closed, description: "where the commit stands in svc's Merkle roots and their anchors" },
);

/** A call in the owner's lists: no text, no salt, no receipt string. */
export const CallSummary = t.Object(
  {
    id: t.String({ description: "call_…" }),
    key_id: t.String({ description: "the API key that committed" }),
    mode: CallMode,
    state: CallState,
    commitment: Hex64,
    receipt_id: t.String(),
    anchor_state: AnchorState,
    anchor_root: Nullable(Hex64),
    public_url: t.String(),
    committed_at: Time,
    revealed_at: Nullable(Time),
  },
  closed,
);

export const TrustModel = t.Object(
  { commitment: t.String(), custody: t.String(), receipt: t.String(), anchor: t.String() },
  { ...closed, description: "what a reader has to trust, and what it can check" },
);

export const CallList = t.Object(
  {
    calls: t.Array(CallSummary, { maxItems: L.CALLS_CAP, description: "newest first, all of them (an account holds at most cap)" }),
    count: Int({ minimum: 0, description: "how many calls the list holds" }),
    cap: Int({ description: "the most calls an account may hold" }),
    trust_model: TrustModel,
  },
  closed,
);

/** A call as the public page, the commit and the reveal answer it: text and salt_hex stay null until revealed. */
export const Call = t.Object(
  {
    id: t.String(),
    mode: CallMode,
    state: CallState,
    commitment: Hex64,
    commitment_alg: t.String(),
    receipt: CallReceipt,
    anchor: CallAnchor,
    text: Nullable(t.String({ description: "null until revealed" })),
    salt_hex: Nullable(t.String({ pattern: "^[0-9a-f]+$", description: "null until revealed" })),
    public_url: t.String(),
    committed_at: Time,
    revealed_at: Nullable(Time),
    verify: t.String(),
  },
  closed,
);
