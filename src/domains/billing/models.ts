/**
 * TypeBox models of the billing routes: closed request bodies (an unknown field is refused and
 * named, never stripped) and the exact shapes served (docs/deposits.md, docs/plans.md), so the
 * OpenAPI document describes what the routes answer.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable, SignedMicroUsd } from "../../core/schemas.ts";
import { LEDGER_LIMIT } from "./ledger.ts";
import { TX_HASH_PATTERN } from "./transfer-check.ts";

const closed = { additionalProperties: false } as const;

const Time = t.String({ format: "date-time" });
const Address = (description: string) => t.String({ pattern: "^0x[0-9a-fA-F]{40}$", description });

// ── Requests ────────────────────────────────────────────────────────────────────────────────

/**
 * Chain names and plan ids are bounded as svc.toml bounds them (32 characters); whether one is
 * configured is the service's check, which answers 400 naming the field and listing the known ones.
 */
export const DepositBody = t.Object(
  {
    chain: t.String({ minLength: 1, maxLength: 32, description: "a chain name from GET /v1/billing/methods" }),
    tx_hash: t.String({ pattern: TX_HASH_PATTERN, error: "must be a 0x-prefixed 32-byte hex transaction hash", description: "the transaction that transferred USDT to the treasury" }),
  },
  closed,
);

export const SubscribeBody = t.Object({ plan: t.String({ minLength: 1, maxLength: 32, description: "a plan id from GET /v1/billing/plans" }) }, closed);

export const AlertsBody = t.Object(
  {
    balance_low_micro_usd: t.Union([MicroUsd(), t.Null()], {
      error: "must be a whole number of micro-USD, 0 or more, or null",
      description: "balance_low fires when a debit takes the balance below this; null: the deployment default; 0: never",
    }),
  },
  closed,
);

/** limit stays a string: ledger.ts reads it (400 naming `limit`; above the maximum clamps). */
export const LedgerQuery = t.Object({
  limit: t.Optional(t.String({ description: `${LEDGER_LIMIT.min}–${LEDGER_LIMIT.max}, default ${LEDGER_LIMIT.default}; larger values are clamped` })),
  cursor: t.Optional(t.String({ description: "the next_cursor of the previous page, exactly" })),
});

// ── Balance and ledger ─────────────────────────────────────────────────────────────────────

export const Balance = t.Object(
  {
    balance_micro_usd: MicroUsd(),
    held_micro_usd: MicroUsd({ description: "reserved for work in flight" }),
    spendable_micro_usd: MicroUsd({ description: "balance − held" }),
  },
  closed,
);

export const EntryKind = t.Union([t.Literal("credit"), t.Literal("debit"), t.Literal("hold"), t.Literal("release"), t.Literal("adjustment")]);

export const LedgerEntry = t.Object(
  {
    id: t.String(),
    kind: EntryKind,
    amount_micro_usd: SignedMicroUsd({ description: "negative only for an adjustment that takes credit away" }),
    balance_after_micro_usd: MicroUsd(),
    held_after_micro_usd: MicroUsd(),
    hold_id: Nullable(t.String()),
    ref_type: Nullable(t.String()),
    ref_id: Nullable(t.String()),
    memo: Nullable(t.String()),
    created_at: Time,
  },
  closed,
);

/** Named-key envelope (spec §2.1). */
export const LedgerPage = t.Object(
  {
    entries: t.Array(LedgerEntry),
    next_cursor: Nullable(t.String({ description: "pass as ?cursor= for the next (older) page; null on the last page" })),
    has_more: t.Boolean(),
  },
  closed,
);

// ── Deposits and methods ───────────────────────────────────────────────────────────────────

export const Deposit = t.Object(
  {
    id: t.String(),
    status: t.Union([t.Literal("pending"), t.Literal("credited")]),
    chain: t.String(),
    chain_id: Int({ minimum: 1 }),
    tx_hash: t.String({ pattern: "^0x[0-9a-f]{64}$" }),
    log_index: Int({ minimum: 0 }),
    token: Address("the USDT contract (EIP-55)"),
    from: Address("the sending wallet (EIP-55)"),
    to: Address("the treasury (EIP-55)"),
    amount: t.String({ pattern: "^[0-9]+$", maxLength: 78, description: "token base units, a decimal string (uint256 does not fit a JSON number)" }),
    decimals: Int({ minimum: 0 }),
    amount_micro_usd: MicroUsd(),
    block_number: Int({ minimum: 0 }),
    confirmations: Int({ minimum: 0 }),
    required_confirmations: Int({ minimum: 1 }),
    source: t.Union([t.Literal("deposit"), t.Literal("payment")], { description: "posted as a deposit, or arrived as an x402 payment" }),
    explorer_url: Nullable(t.String({ description: "the transaction on the chain's explorer, when the operator configured one" })),
    last_error: Nullable(t.String({ description: "why the last re-check could not confirm a pending deposit" })),
    created_at: Time,
    credited_at: Nullable(Time),
  },
  closed,
);

export const Deposits = t.Array(Deposit, { description: "newest first, at most 100 (bare array)" });

export const Refresh = t.Object(
  {
    checked: Int({ minimum: 0 }),
    credited: Int({ minimum: 0 }),
    deposits: t.Array(Deposit, { description: "the deposits re-checked, as they are now" }),
  },
  closed,
);

export const ChainMethod = t.Object(
  {
    name: t.String(),
    chain_id: Int({ minimum: 1 }),
    asset: t.Literal("USDT"),
    token: Address("the USDT contract on this chain (EIP-55)"),
    decimals: Int({ minimum: 0 }),
    confirmations: Int({ minimum: 1, description: "blocks a transfer needs (head − block + 1) before it is credited" }),
    explorer_url: t.Optional(t.String({ description: "present when the operator configured one" })),
  },
  closed,
);

export const BillingMethods = t.Object(
  {
    deposits_enabled: t.Boolean({ description: "a treasury and at least one chain are configured" }),
    treasury: Nullable(Address("where USDT deposits and x402 payments go (EIP-55)")),
    chains: t.Array(ChainMethod),
  },
  closed,
);

// ── Plans and subscriptions ────────────────────────────────────────────────────────────────

export const Plan = t.Object(
  {
    id: t.String(),
    name: t.String(),
    monthly_fee_micro_usd: MicroUsd(),
    retention_days: Int({ minimum: 1 }),
    limits: t.Record(t.String(), Int({ minimum: 0 }), { description: "limit name → maximum; a name not listed is unlimited" }),
    features: t.Array(t.String()),
  },
  closed,
);

/** Named-key envelope: the spec assigns this list none, and default_plan_id sits beside it. */
export const Plans = t.Object(
  {
    plans: t.Array(Plan),
    default_plan_id: Nullable(t.String({ description: "the first zero-fee plan; null when the catalogue has none" })),
  },
  closed,
);

const Charge = t.Object(
  {
    period_start: Time,
    period_end: Time,
    fee_micro_usd: MicroUsd(),
    ledger_entry_id: Nullable(t.String({ description: "null for a zero fee" })),
    charged_at: Time,
  },
  closed,
);

const EndReason = t.Union([t.Literal("cancelled"), t.Literal("insufficient_credit"), t.Literal("switched"), t.Literal("plan_withdrawn")]);

export const Subscription = t.Object(
  {
    id: Nullable(t.String({ description: "the term's id; null on the default plan" })),
    subscribed: t.Boolean({ description: "false on the default plan (never subscribed, or the last term ended)" }),
    plan_id: Nullable(t.String()),
    plan: Nullable(Plan),
    status: t.Union([t.Literal("active"), t.Literal("cancelled"), t.Literal("none")], {
      description: "cancelled: runs to current_period_end, then the default plan; none: no plan at all (no zero-fee plan configured)",
    }),
    started_at: Nullable(Time),
    current_period_start: Nullable(Time),
    current_period_end: Nullable(Time),
    renews: t.Boolean(),
    next_fee_micro_usd: Nullable(MicroUsd({ description: "what renewal will charge; null when it will not renew" })),
    cancelled_at: Nullable(Time),
    last_charge: Nullable(Charge),
    previous: Nullable(t.Object({ id: t.String(), plan_id: t.String(), ended_at: Time, reason: EndReason }, closed)),
  },
  closed,
);

// ── Alerts ─────────────────────────────────────────────────────────────────────────────────

export const Alerts = t.Object(
  {
    balance_low_micro_usd: Nullable(MicroUsd({ description: "the account's own threshold; null: the deployment default" })),
    default_threshold_micro_usd: MicroUsd(),
    effective_threshold_micro_usd: MicroUsd(),
    armed: t.Boolean({ description: "the balance is at or above the threshold: the next downward crossing fires" }),
    balance_micro_usd: MicroUsd(),
    last_fired_at: Nullable(Time),
  },
  closed,
);
