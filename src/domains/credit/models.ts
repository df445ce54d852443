/**
 * TypeBox models of GET /v1/credit: the exact shape served (the account's ledger balance and
 * the calling key's monthly position), so the OpenAPI document describes what is served.
 */
import { t } from "elysia";
import { MicroUsd, Nullable } from "../../core/schemas.ts";

const closed = { additionalProperties: false } as const;

export const KeyPosition = t.Object(
  {
    id: t.String({ description: "the calling key" }),
    month: t.String({ pattern: "^\\d{4}-\\d{2}$", description: "the UTC month (YYYY-MM) the figures are for" }),
    monthly_cap_micro_usd: Nullable(MicroUsd({ description: "null: no monthly cap on this key" })),
    spent_this_month_micro_usd: MicroUsd({ description: "this key and every key delegated below it" }),
    held_micro_usd: MicroUsd({ description: "reserved for this key's work in flight" }),
    remaining_this_month_micro_usd: Nullable(MicroUsd({ description: "cap − spent − held, at least 0; null without a cap" })),
    frozen: t.Boolean({ description: "frozen by its circuit breaker (only unfreeze lifts it)" }),
  },
  closed,
);

export const Credit = t.Object(
  {
    balance_micro_usd: MicroUsd(),
    held_micro_usd: MicroUsd({ description: "reserved for work in flight across the account" }),
    spendable_micro_usd: MicroUsd({ description: "balance − held" }),
    key: KeyPosition,
  },
  closed,
);
