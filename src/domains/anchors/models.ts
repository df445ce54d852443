/**
 * TypeBox models of GET /v1/anchors/:root and of the anchor block that run proofs embed (spec
 * §2.4: root, memo, anchors[]). Each backend's anchor is its own closed shape: a log anchor
 * carries its signed entry, an evm anchor its chain and block.
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";
import { Address, Hex64, Signature, Statement } from "../receipts/index.ts";
import { ROOT_PATTERN } from "./roots.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

export const RootParams = t.Object({
  root: t.String({ pattern: ROOT_PATTERN, error: "must be a Merkle root: 64 hex characters", description: "a root, as in a run proof or the explorer" }),
});

export const AnchorStatus = t.Union([t.Literal("pending"), t.Literal("submitted"), t.Literal("anchored")]);

const Memo = t.String({ description: "<prefix>:v1:<root>, what every anchor of the root carries" });

export const LogEntry = t.Object(
  {
    seq: Int({ minimum: 1 }),
    id: t.String(),
    statement: Statement,
    signature: Signature,
    signer: Address,
    prev_hash: Hex64,
    hash: Hex64,
  },
  closed,
);

const common = {
  external_id: Nullable(t.String({ description: "log: the log entry id; evm: the transaction hash (null while pending)" })),
  status: AnchorStatus,
  created_at: Time,
  confirmed_at: Nullable(Time),
  verify: t.String({ description: "how to check this anchor" }),
};

export const LogAnchor = t.Object(
  { backend: t.Literal("log"), ...common, explorer_url: t.Null(), entry: t.Optional(LogEntry) },
  { ...closed, description: "svc's signed append-only log of roots" },
);

export const EvmAnchor = t.Object(
  {
    backend: t.Literal("evm"),
    ...common,
    explorer_url: Nullable(t.String()),
    chain: t.Optional(t.String({ description: "the configured chain's name" })),
    chain_id: t.Optional(Int()),
    block_number: Nullable(Int({ description: "null until mined" })),
  },
  { ...closed, description: "a transaction carrying the memo on an EVM chain" },
);

export const Anchor = t.Union([LogAnchor, EvmAnchor]);

export const AnchorBlock = t.Object({ root: Hex64, memo: Memo, anchors: t.Array(Anchor) }, closed);

export const AnchorDocument = t.Object(
  {
    root: Hex64,
    memo: Memo,
    anchors: t.Array(Anchor),
    tree_size: Int({ minimum: 1 }),
    merkle_alg: t.String(),
    leaves: t.Array(
      t.Object(
        {
          index: Int({ minimum: 0 }),
          leaf_hash: Hex64,
          receipt_id: Nullable(t.String({ description: "only while the receipt's owner shares it" })),
        },
        closed,
      ),
    ),
    created_at: Time,
    verify: t.String(),
  },
  closed,
);
