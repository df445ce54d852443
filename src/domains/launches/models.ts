/**
 * TypeBox models of the /v1/launches routes: closed request bodies (an unknown field is refused
 * and named) and the exact shapes served, so the OpenAPI document describes what is served.
 */
import { Instant } from "../../core/instant.ts";
import { t } from "elysia";
import { MicroUsd, Nullable, Sha256Hex } from "../../core/schemas.ts";
import { EvidenceReference, EvidenceSourceInput, EvidenceSourceView } from "../evidence/index.ts";
import { REDEMPTIONS_LIST_CAP } from "./redemptions.ts";
import { LAUNCH_LIST_CAP, MAX_INTERVAL_SECS, SLUG_PATTERN } from "./service.ts";
import { TOOLS } from "./spec.ts";

const closed = { additionalProperties: false } as const;

const TimeInput = (description: string) => Instant({ description });
const Address = (description?: string) => t.String({ pattern: "^0x[0-9a-fA-F]{40}$", error: "must be a 0x-prefixed 20-byte address", ...(description ? { description } : {}) });
const Units = (description: string) => t.String({ pattern: "^(0|[1-9][0-9]{0,77})$", error: "must be a whole number of base units, as a decimal string", description });
const PositiveUnits = (description: string) => t.String({ pattern: "^[1-9][0-9]{0,77}$", error: "must be a positive whole number of base units, as a decimal string", description });
const Time = t.String({ format: "date-time" });

// ---------------------------------------------------------------------------------------------
// requests

export const SpecInput = t.Object(
  {
    tools: t.Array(t.Union(TOOLS.map((x) => t.Literal(x))), { maxItems: TOOLS.length, uniqueItems: true, description: `the tools the launch may use, for good: ${TOOLS.join(", ")}` }),
    passthrough: t.Boolean({ description: "whether the launch passes income through to holders (needed by distributions)" }),
  },
  { additionalProperties: true, description: "locked at creation: canonical JSON (integers only: write fractions as strings), at most 16 KiB; any further fields are the issuer's terms" },
);

export const CreateBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 120, pattern: "\\S", error: "must be 1 to 120 characters, not all whitespace" }),
    slug: t.Optional(t.String({ pattern: SLUG_PATTERN, maxLength: 64, error: "must be 1-64 lowercase letters, digits and inner hyphens" })),
    org_id: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "make it the org's launch (needs the org's admin role); absent: the account's own" })),
    custodian: EvidenceSourceInput,
    decimals: t.Integer({ minimum: 0, maximum: 36, description: "the token's decimals: the scale the custodian's figure is counted in" }),
    interval_s: t.Integer({ minimum: 1, maximum: MAX_INTERVAL_SECS, description: "seconds between scheduled checks (at least launches.min_interval_secs)" }),
    spec: SpecInput,
    reveal_at: t.Optional(TimeInput("when the spec becomes public; absent: public at once (the digest always is)")),
  },
  closed,
);

export const PatchBody = t.Object(
  {
    custodian: t.Optional(
      t.Object(
        {
          url: t.Optional(t.String({ minLength: 1, maxLength: 2048 })),
          credential: t.Optional(t.String({ minLength: 1, maxLength: 4096 })),
          pointer: t.Optional(t.String({ maxLength: 512 })),
        },
        closed,
      ),
    ),
    decimals: t.Optional(t.Integer({ minimum: 0, maximum: 36, description: "only before a token is bound" })),
    interval_s: t.Optional(t.Integer({ minimum: 1, maximum: MAX_INTERVAL_SECS })),
  },
  { ...closed, description: "only the custodian's endpoint, credential and pointer, decimals and interval change; the spec never does" },
);

export const TokenBody = t.Object({ chain: t.String({ minLength: 1, maxLength: 64, description: "a configured chain's name (GET /v1/billing/methods)" }), token: Address("the ERC-20 contract") }, closed);

export const MintBody = t.Object({ amount: PositiveUnits("base units to mint"), to: Address("who receives the minted tokens") }, closed);

export const DistributionBody = t.Object(
  {
    amount_units: PositiveUnits("the amount distributed, in base units of `asset`"),
    asset: t.String({ minLength: 1, maxLength: 32, pattern: "^[A-Za-z0-9._-]+$", error: "must be 1-32 letters, digits, dots, hyphens or underscores", description: "what was distributed (e.g. USD, USDT)" }),
    record_date: t.Optional(TimeInput("holders of record at this instant")),
    memo: t.Optional(t.String({ maxLength: 500 })),
  },
  closed,
);

export const RedeemBody = t.Object(
  {
    tx_hash: t.String({ maxLength: 66, description: "the burn's transaction" }),
    log_index: t.Optional(t.Integer({ minimum: 0, description: "which burn, when the transaction holds several" })),
  },
  closed,
);

export const SubscriptionBody = t.Object(
  {
    chain: t.String({ minLength: 1, maxLength: 64 }),
    payment_token: Address("the token subscribers pay in"),
    price_units: PositiveUnits("price per period, in the payment token's base units"),
    period_secs: t.Integer({ minimum: 3600, maximum: 366 * 86_400 }),
    pay_to: Address("one of the launch account's linked wallets"),
  },
  closed,
);

export const AuthorizeBody = t.Object({ subscriber: Address("the wallet that will pay") }, closed);

export const Params = t.Object({ id: t.String({ maxLength: 100 }) });
export const SlugParams = t.Object({ slug: t.String({ maxLength: 100 }) });
export const ActionsQuery = t.Object({ before_seq: t.Optional(t.String({ maxLength: 20 })), limit: t.Optional(t.String({ maxLength: 10 })) });

// ---------------------------------------------------------------------------------------------
// responses

export const Check = t.Object(
  {
    seq: t.Integer({ minimum: 1 }),
    status: t.Union([t.Literal("VERIFIED"), t.Literal("DISCREPANCY"), t.Literal("UNAVAILABLE")]),
    trigger: t.Union([t.Literal("scheduled"), t.Literal("owner"), t.Literal("public")]),
    reserves: Nullable(t.String({ description: "the custodian's figure, as decimal text" })),
    reserves_units: Nullable(t.String({ description: "the figure × 10^decimals, floor" })),
    supply_units: Nullable(t.String({ description: "totalSupply() at block_number (0 before a token is bound)" })),
    decimals: t.Integer(),
    chain_id: Nullable(t.Integer()),
    token: Nullable(t.String()),
    block_number: Nullable(t.Integer()),
    evidence: Nullable(EvidenceReference),
    reason: Nullable(t.String()),
    checked_at: Time,
    stale: t.Boolean({ description: "older than two intervals" }),
  },
  closed,
);

const TokenView = t.Object({ chain: t.String(), chain_id: t.Integer(), address: t.String(), bound_at: Time }, closed);

const publicFields = {
  id: t.String(),
  slug: t.String(),
  name: t.String(),
  status: t.Union([t.Literal("active"), t.Literal("retired")]),
  spec: Nullable(t.Record(t.String(), t.Unknown(), { description: "null until reveal_at (publicly)" })),
  spec_canonical: Nullable(t.String({ description: "the canonical JSON the digest is over; null until reveal_at (publicly)" })),
  digest: Sha256Hex(),
  reveal_at: Nullable(Time),
  revealed: t.Boolean(),
  verdict_signer: t.String({ description: "the address that signs this launch's checks, authorizations and receipts" }),
  decimals: t.Integer(),
  interval_s: t.Integer(),
  custodian: EvidenceSourceView,
  token: Nullable(TokenView),
  latest_check: Nullable(Check),
  created_at: Time,
  retired_at: Nullable(Time),
};

export const PublicLaunch = t.Object(publicFields, closed);

const ownerFields = { ...publicFields, account_id: t.String(), org_id: Nullable(t.String()), updated_at: Time };

export const OwnerLaunch = t.Object(ownerFields, closed);

export const MintEligibility = t.Object(
  {
    eligible: t.Boolean(),
    reasons: t.Array(t.String()),
    latest_check_seq: Nullable(t.Integer()),
    latest_check_status: Nullable(t.String()),
    check_fresh: t.Boolean(),
    token_bound: t.Boolean(),
    chain_reachable: Nullable(t.Boolean()),
    paused: Nullable(t.Boolean({ description: "null: not read, or the contract has no paused()" })),
    reserves_units: Nullable(t.String()),
    supply_units: Nullable(t.String()),
    outstanding_units: t.String({ description: "unexpired mint authorizations" }),
    headroom_units: Nullable(t.String({ description: "reserves − supply − outstanding (negative when under water)" })),
  },
  closed,
);

export const LaunchDetail = t.Object({ ...ownerFields, mint_eligibility: MintEligibility }, closed);

export const OwnerLaunchList = t.Object({ launches: t.Array(OwnerLaunch, { maxItems: LAUNCH_LIST_CAP, description: `newest first, at most ${LAUNCH_LIST_CAP}` }) }, closed);
export const PublicLaunchList = t.Object({ launches: t.Array(PublicLaunch, { maxItems: LAUNCH_LIST_CAP, description: `newest first, at most ${LAUNCH_LIST_CAP}` }) }, closed);

export const CheckResult = t.Object({ launch_id: t.String(), slug: t.String(), check: Check }, closed);

export const Action = t.Object(
  {
    seq: t.Integer({ minimum: 1 }),
    kind: t.String(),
    data: t.Record(t.String(), t.Unknown()),
    created_at_ms: t.Integer(),
    created_at: Time,
    prev_hash: Sha256Hex(),
    entry_hash: Sha256Hex(),
  },
  closed,
);

export const ActionsPage = t.Object({ actions: t.Array(Action), launch_id: t.String(), slug: t.String(), next_before_seq: Nullable(t.Integer()) }, closed);

export const ToolResult = t.Object({ launch_id: t.String(), slug: t.String(), action: Action }, closed);

export const Fees = t.Object({ launch_fee_micro_usd: MicroUsd(), monthly_fee_micro_usd: MicroUsd(), public_check_price_micro_usd: MicroUsd(), public_check_cooldown_secs: t.Integer() }, closed);

const Domain = t.Object({ name: t.Literal("svc"), version: t.Literal("1"), chainId: t.Optional(t.Integer()), verifyingContract: t.Optional(t.String()) }, closed);

const typedFields = {
  domain: Domain,
  types: t.Record(t.String(), t.Array(t.Object({ name: t.String(), type: t.String() }, closed))),
  primary_type: t.String(),
  message: t.Record(t.String(), t.String(), { description: "uint256 values as decimal strings" }),
  digest: t.String({ description: "the EIP-712 hash signed" }),
  signature: t.String({ description: "0x r ‖ s ‖ v over the digest, no prefix" }),
  signer: t.String(),
};

export const Attestation = t.Object(
  { launch_id: t.String(), slug: t.String(), check: Check, stale: t.Boolean(), stale_after: Time, attestation: t.Object(typedFields, closed) },
  closed,
);

export const MintAuthorization = t.Object({ id: t.String(), launch_id: t.String(), check_seq: t.Integer(), deadline: Time, created_at: Time, ...typedFields }, closed);

export const Onchain = t.Object(
  {
    launch_id: t.String(),
    slug: t.String(),
    bound: t.Boolean(),
    chain: Nullable(t.String()),
    chain_id: Nullable(t.Integer()),
    token: Nullable(t.String()),
    reachable: Nullable(t.Boolean({ description: "false: the node did not answer (down, silent, or on another chain); null: no token bound" })),
    block_number: Nullable(t.Integer()),
    total_supply_units: Nullable(t.String()),
    decimals: Nullable(t.Integer()),
    paused: Nullable(t.Boolean({ description: "null when the contract has no paused() or was not read" })),
    reason: Nullable(t.String()),
    read_at: Time,
  },
  closed,
);

export const Redemption = t.Object(
  {
    id: t.String(),
    launch_id: t.String(),
    slug: t.String(),
    chain_id: t.Integer(),
    token: t.String(),
    tx_hash: t.String(),
    log_index: t.Integer(),
    redeemer: t.String(),
    amount_units: t.String(),
    block_number: t.Integer(),
    statement: t.String({ description: "base64url canonical JSON of payload, signed EIP-191" }),
    signature: t.String(),
    signer: t.String(),
    payload: t.Record(t.String(), t.Unknown()),
    created_at: Time,
  },
  closed,
);

export const RedemptionList = t.Object({ redemptions: t.Array(Redemption, { maxItems: REDEMPTIONS_LIST_CAP }), launch_id: t.String(), slug: t.String() }, closed);

export const SubscriptionTerms = t.Object(
  {
    enabled: t.Boolean(),
    launch_id: t.String(),
    slug: t.String(),
    chain: Nullable(t.String()),
    chain_id: Nullable(t.Integer()),
    payment_token: Nullable(t.String()),
    payment_token_decimals: Nullable(t.Integer({ description: "null when the token has no decimals()" })),
    price_units: Nullable(t.String()),
    period_secs: Nullable(t.Integer()),
    pay_to: Nullable(t.String()),
    updated_at: Nullable(Time),
  },
  closed,
);

export const SubscriptionAuthorization = t.Object(
  { launch_id: t.String(), slug: t.String(), screened_at: Time, screening_list_sha256: Sha256Hex(), deadline: Time, ...typedFields },
  closed,
);
