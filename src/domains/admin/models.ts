/**
 * TypeBox models of the /v1/admin routes: closed request bodies (an unknown field is refused and
 * named, docs/api-conventions.md) and the exact shapes served (metrics.ts, denylist.ts,
 * accounts.ts).
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable, Sha256Hex } from "../../core/schemas.ts";
import { Balance, LedgerEntry } from "../billing/index.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

export const Sha256 = Sha256Hex("must be the full sha256 of the payload: 64 hex characters");
const Reason = t.Optional(Nullable(t.String({ maxLength: 500 })));

export const SuspendBody = t.Object(
  {
    account_id: t.String({ minLength: 1, maxLength: 100 }),
    suspended: t.Boolean({ description: "true suspends, false lifts a suspension" }),
    reason: Reason,
  },
  closed,
);

export const Suspension = t.Object(
  {
    account_id: t.String(),
    suspended: t.Boolean(),
    suspended_at: Nullable(t.String({ format: "date-time", description: "when the suspension began (kept when suspended again); null when not suspended" })),
    reason: Nullable(t.String()),
  },
  { ...closed, description: "The account's suspension after the change" },
);

export const DenyBody = t.Object({ sha256: Sha256, reason: Reason }, closed);
export const DenyParams = t.Object({ sha256: Sha256 });

const Digest = t.String({ pattern: "^[0-9a-f]{64}$", description: "sha256 of the body, lower-case hex" });

const denyEntryFields = {
  sha256: Digest,
  reason: Nullable(t.String()),
  created_at: Time,
  hits: Int({ minimum: 0, description: "request bodies refused because of this entry" }),
  last_hit_at: Nullable(Time),
};

export const DenyEntry = t.Object(denyEntryFields, closed);
export const DenyEntryAdded = t.Object(denyEntryFields, { ...closed, description: "201: a new digest was listed; 200: it was already listed (the reason is updated when given)" });

export const DenyRemoved = t.Object({ sha256: Digest, deleted: t.Literal(true) }, { ...closed, description: "No longer refused" });

/** 24h, 7d, 30d and all time, each a window ending now. */
const windows = <S extends ReturnType<typeof MicroUsd> | ReturnType<typeof t.Object>>(value: S) =>
  t.Object({ "24h": value, "7d": value, "30d": value, all_time: value }, closed);

const Counts = t.Record(t.String(), Int({ minimum: 0 }), { description: "event type → events" });

export const AdminMetrics = t.Object(
  {
    generated_at: Time,
    billing_enforced: t.Boolean(),
    accounts: t.Object({ total: Int({ minimum: 0 }), suspended: Int({ minimum: 0 }), paying: Int({ minimum: 0, description: "accounts with at least one credit entry (a deposit or payment)" }) }, closed),
    spend_micro_usd: windows(MicroUsd({ description: "debits in the window" })),
    credited_micro_usd: windows(MicroUsd({ description: "credits (deposits, payments) in the window" })),
    adjustments_micro_usd: windows(t.Object({ granted: MicroUsd(), taken: MicroUsd() }, closed)),
    events_by_kind: t.Object({ "24h": Counts, all_time: Counts }, closed),
  },
  { ...closed, description: "The operator's business view: accounts, money by window, events by kind" },
);

// ── Accounts (the operator's view: accounts.ts) ──────────────────────────────────────────────

export const AccountsQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 100, description: "0x…: a wallet, full or its start; anything else: the start of an account id (case-insensitive)" })),
  // limit stays a string: parseLimit reads it (400 naming `limit`; above the maximum clamps).
  limit: t.Optional(t.String({ description: "1–200, default 50; larger values are clamped" })),
  after: t.Optional(t.String({ maxLength: 100, description: "the id of the last account of the previous page" })),
});

export const AccountParams = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

const adminAccountFields = {
  id: t.String(),
  created_at: Time,
  suspended: t.Boolean(),
  suspended_at: Nullable(Time),
  suspended_reason: Nullable(t.String()),
  wallets: t.Array(t.String({ pattern: "^0x[0-9a-fA-F]{40}$" }), { description: "EIP-55 checksummed, in the order they were linked" }),
  balance_micro_usd: MicroUsd(),
  held_micro_usd: MicroUsd({ description: "reserved for work in flight" }),
  spendable_micro_usd: MicroUsd({ description: "balance − held" }),
  spent_this_month_micro_usd: MicroUsd({ description: "debit entries since the start of this UTC month" }),
};

export const AdminAccount = t.Object(adminAccountFields, closed);

export const AdminAccountList = t.Object(
  {
    object: t.Literal("list"),
    data: t.Array(AdminAccount, { description: "newest first, at most 200" }),
    has_more: t.Boolean({ description: "more accounts after the last: ask again with after=<its id> (and the same q)" }),
  },
  { ...closed, description: "List object with has_more, as GET /v1/batches" },
);

export const AdminAccountDetail = t.Object(
  {
    ...adminAccountFields,
    month: t.String({ pattern: "^\\d{4}-\\d{2}$", description: "the UTC month spent_this_month_micro_usd is for" }),
    keys: t.Object(
      {
        total: Int({ minimum: 0, description: "every key the account has had, revoked ones included" }),
        active: Int({ minimum: 0, description: "usable now: not revoked, rotated, expired or frozen" }),
      },
      closed,
    ),
    recent_entries: t.Array(LedgerEntry, { description: "its latest ledger entries, newest first (at most 20)" }),
  },
  { ...closed, description: "One account as the operator sees it" },
);

export const CreditBody = t.Object(
  {
    amount_micro_usd: MicroUsd({ minimum: 1, description: "integer micro-USD, at least 1 (1000000 = $1)" }),
    direction: t.Union([t.Literal("grant"), t.Literal("debit")], { error: "must be grant or debit", description: "grant adds credit; debit takes it (never more than the account can spend)" }),
    reason: t.String({ minLength: 1, maxLength: 500, description: "why: kept on the ledger entry and in the audit log" }),
  },
  closed,
);

export const CreditAdjusted = t.Object(
  {
    entry: LedgerEntry,
    balance: Balance,
  },
  { ...closed, description: "The adjustment's ledger entry (kind adjustment; negative for a debit) and the balance right after it" },
);
