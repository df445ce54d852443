/**
 * TypeBox models of the /v1/admin routes: closed request bodies (an unknown field is refused and
 * named, docs/api-conventions.md) and the exact shapes served (metrics.ts, denylist.ts).
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable, Sha256Hex } from "../../core/schemas.ts";

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
