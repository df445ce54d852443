/**
 * GET /v1/admin/metrics and `svc admin metrics`: the operator's business view. Paying accounts
 * are those with at least one credit entry (money in from a deposit or payment; operator
 * grants are adjustments and do not count). Spend is the sum of debit entries per window.
 */
import { isoTime } from "../../core/clock.ts";
import type { IndexedKind } from "../../core/ledger.ts";
import type { Context } from "../../context.ts";
import { accountCounts } from "../accounts/index.ts";

const WINDOWS = { "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 } as const;
type Window = keyof typeof WINDOWS | "all_time";

export interface AdminMetrics {
  generated_at: string;
  billing_enforced: boolean;
  accounts: { total: number; suspended: number; paying: number };
  spend_micro_usd: Record<Window, number>;
  credited_micro_usd: Record<Window, number>;
  /** Operator adjustments (svc admin credit grant|debit): granted is added credit, taken is removed credit. */
  adjustments_micro_usd: Record<Window, { granted: number; taken: number }>;
  events_by_kind: Record<"24h" | "all_time", Record<string, number>>;
}

export function adminMetrics(ctx: Context): AdminMetrics {
  const now = ctx.clock.now();
  const accounts = accountCounts(ctx);
  const paying = ctx.ledger.payingAccounts();
  const sum = (kind: IndexedKind, since: number) => ctx.ledger.sumOf(kind, since);
  const byWindow = (kind: IndexedKind): Record<Window, number> => ({
    "24h": sum(kind, now - WINDOWS["24h"]),
    "7d": sum(kind, now - WINDOWS["7d"]),
    "30d": sum(kind, now - WINDOWS["30d"]),
    all_time: sum(kind, 0),
  });
  const adjusted = (since: number) => ctx.ledger.adjustmentsSince(since);
  return {
    generated_at: isoTime(now),
    billing_enforced: ctx.config.billing.enforced,
    accounts: { total: accounts.total, suspended: accounts.suspended, paying },
    spend_micro_usd: byWindow("debit"),
    credited_micro_usd: byWindow("credit"),
    adjustments_micro_usd: { "24h": adjusted(now - WINDOWS["24h"]), "7d": adjusted(now - WINDOWS["7d"]), "30d": adjusted(now - WINDOWS["30d"]), all_time: adjusted(0) },
    events_by_kind: { "24h": ctx.outbox.countsByType(now - WINDOWS["24h"]), all_time: ctx.outbox.countsByType() },
  };
}
