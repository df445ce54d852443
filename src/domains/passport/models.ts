/**
 * TypeBox models of /v1/passport and /v1/registry/identity: a closed request body (an unknown
 * field is refused and named) and the exact shapes served (service.ts and identity.ts build
 * them), so the OpenAPI document describes what is served. Sizes come from limits.ts.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { AnchorBlockSchema } from "../anchors/index.ts";
import { Address, Hex64, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

export const Handle = t.String({ pattern: L.HANDLE_PATTERN, error: `must be a handle: ${L.HANDLE_RULE}`, description: `the passport's public name: ${L.HANDLE_RULE}; fixed at the first mint` });

export const MintBody = t.Object(
  {
    handle: Handle,
    agent_name: t.String({
      minLength: 1,
      maxLength: L.MAX_AGENT_NAME_CHARS,
      pattern: "\\S",
      error: `must be 1 to ${L.MAX_AGENT_NAME_CHARS} characters, not all whitespace`,
      description: "the agent's display name (stated in the credential); surrounding whitespace is trimmed",
    }),
    wallet: t.Optional(
      Nullable(t.String({ pattern: "^0x[0-9a-fA-F]{40}$", error: "must be a 0x address of 40 hex characters", description: "a wallet linked to this account (GET /v1/auth/wallets); absent or null: none" })),
    ),
  },
  closed,
);

/** Handles are lowercase; a lookup is too, so the route takes any case and the pattern is the service's to apply. */
export const HandleParams = t.Object({ handle: t.String({ minLength: 1, maxLength: 100 }) });

export const Stats = t.Object(
  {
    verified_runs: Int({ minimum: 0, description: "runs whose every receipt was checked: signature by svc's receipt signer, payload naming this account and run" }),
    anchored_runs: Int({ minimum: 0, description: "runs whose every receipt lies under a root with an anchor in status anchored" }),
    receipts: Int({ minimum: 0, description: "signed receipts the account holds" }),
    metered_events: Int({ minimum: 0, description: "usage events over the account's history" }),
    metered_spend_micro_usd: MicroUsd({ description: "what those events cost" }),
    active_mandates: Int({ minimum: 0, description: "mandates in status active" }),
    operates_under_budget_caps: t.Boolean({ description: "at least one key can spend now and every such key has a monthly or lifetime cap" }),
    first_seen: Time,
  },
  { ...closed, description: "counts and sums of the account's own records when the credential was issued; never a score" },
);

/** What the credential decodes to (canonical JSON, base64url). */
export const CredentialPayload = t.Object(
  {
    v: t.Literal(1),
    type: t.Literal("agent-passport"),
    handle: t.String(),
    agent_name: t.String(),
    wallet: Nullable(t.String()),
    stats: Stats,
    trust_model: t.String(),
    issued_at: Time,
  },
  closed,
);

const AnchorState = t.Union([t.Literal("pending"), t.Literal("batched"), t.Literal("anchored")], {
  description: "pending: not yet under a root (the next anchoring pass puts it there); batched: under a root none of whose anchors is anchored yet; anchored: under a root with an anchor in status anchored",
});

export const PassportAnchor = t.Object(
  {
    state: AnchorState,
    root: Nullable(Hex64),
    memo: Nullable(t.String({ description: "<prefix>:v1:<root>, what every anchor of the root carries" })),
    anchors: AnchorBlockSchema.properties.anchors,
  },
  { ...closed, description: "the root the current credential's commitment is a leaf of, and that root's anchors (null and empty while pending)" },
);

export const Passport = t.Object(
  {
    handle: t.String(),
    agent_name: t.String(),
    wallet: Nullable(t.String()),
    stats: Stats,
    credential: Statement,
    signature: Signature,
    signer: Address,
    updated_at: Time,
    commitment: Hex64,
    commitment_alg: t.String(),
    anchor: PassportAnchor,
    proof_url: t.String(),
    identity_url: t.String(),
    trust_model: t.String(),
    verify: t.String(),
  },
  closed,
);

export const DirectoryEntry = t.Object(
  {
    handle: t.String(),
    agent_name: t.String(),
    wallet: Nullable(t.String()),
    stats: Stats,
    commitment: Hex64,
    updated_at: Time,
    passport_url: t.String(),
  },
  closed,
);

export const Directory = t.Object(
  {
    agents: t.Array(DirectoryEntry, { maxItems: L.DIRECTORY_CAP, description: `ranked by stats.verified_runs, then stats.receipts (both descending), then handle; at most ${L.DIRECTORY_CAP}` }),
    count: Int({ minimum: 0, description: "how many passports the list holds" }),
    ordered_by: t.String(),
  },
  closed,
);

export const Proof = t.Object(
  {
    handle: t.String(),
    credential: Statement,
    signature: Signature,
    signer: Address,
    payload: CredentialPayload,
    commitment: Hex64,
    commitment_alg: t.String(),
    state: AnchorState,
    leaf_hash: Hex64,
    root: Nullable(Hex64),
    leaf_index: Nullable(Int({ minimum: 0 })),
    tree_size: Nullable(Int({ minimum: 1 })),
    siblings: t.Array(Hex64, { description: "the audit path: sibling hashes from the leaf up (RFC 9162 §2.1.3); empty while pending or alone in its tree" }),
    merkle_alg: t.String(),
    anchor: Nullable(AnchorBlockSchema),
    verify: t.String(),
  },
  closed,
);

const Service = t.Object({ name: t.String(), endpoint: t.String(), version: t.Optional(t.String()) }, closed);

/** ERC-8004's agent registration file (its off-chain half), plus what svc adds: the passport and the erc8004 block. */
export const IdentityDocument = t.Object(
  {
    type: t.Literal("https://eips.ethereum.org/EIPS/eip-8004#registration-v1"),
    name: t.String(),
    description: t.String(),
    services: t.Array(Service),
    x402Support: t.Boolean(),
    active: t.Boolean(),
    registrations: t.Array(t.Object({ agentId: Int({ minimum: 0 }), agentRegistry: t.String() }, closed), { maxItems: 0, description: "empty: no on-chain registration exists" }),
    supportedTrust: t.Array(t.String()),
    erc8004: t.Object(
      {
        registry_deployed: t.Literal(false),
        identity_registry: t.Null(),
        agent_id: t.Null(),
        note: t.String(),
      },
      { ...closed, description: "the on-chain half: none" },
    ),
    passport: t.Object({ handle: t.String(), commitment: Hex64, signer: Address, passport_url: t.String(), proof_url: t.String(), updated_at: Time }, closed),
  },
  closed,
);
