/**
 * POST /v1/usage/statement: a signed statement of what an account spent over a closed period,
 * in the format of receipts (core/statements.ts), so an accountant or a counterparty checks it
 * with any Ethereum library without trusting svc's database: recover the signer from
 * (statement, signature), compare with the service signer published at GET / (`signer`),
 * decode the payload.
 *
 * The period must be over (a signed figure that could still grow would be two truths), and is
 * half-open: events with from ≤ created_at < to.
 */
import { isoTime } from "../../core/clock.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import type { Period } from "./period.ts";
import type { Spend } from "./summary.ts";

/** by_key's entry for work done without an API key (session-initiated). */
export const NO_KEY = "none";

export interface UsageStatementPayload {
  v: 1;
  type: "usage-statement";
  account_id: string;
  from: string;
  to: string;
  cost_micro_usd: number;
  events: number;
  by_kind: Record<string, Spend>;
  by_key: Record<string, Spend>;
  issued_at: string;
}

export interface UsageStatement {
  statement: string;
  signature: string;
  signer: string;
  payload: UsageStatementPayload;
}

export function usageStatement(ctx: Context, accountId: string, period: Period): UsageStatement {
  const groups = ctx.db
    .query<{ kind: string; key_id: string | null; cost: number; events: number }, [string, number, number]>(
      `SELECT kind, key_id, sum(cost_micro_usd) AS cost, count(*) AS events
       FROM usage_events WHERE account_id = ? AND created_at >= ? AND created_at < ?
       GROUP BY kind, key_id`,
    )
    .all(accountId, period.from, period.to);
  const byKind: Record<string, Spend> = {};
  const byKey: Record<string, Spend> = {};
  let cost = 0;
  let events = 0;
  for (const g of groups) {
    cost += g.cost;
    events += g.events;
    add((byKind[g.kind] ??= { cost_micro_usd: 0, events: 0 }), g);
    add((byKey[g.key_id ?? NO_KEY] ??= { cost_micro_usd: 0, events: 0 }), g);
  }
  const payload: UsageStatementPayload = {
    v: 1,
    type: "usage-statement",
    account_id: accountId,
    from: isoTime(period.from),
    to: isoTime(period.to),
    cost_micro_usd: cost,
    events,
    by_kind: byKind,
    by_key: byKey,
    issued_at: isoTime(ctx.clock.now()),
  };
  return { ...signStatement(ctx.signer, payload as unknown as Record<string, unknown>), payload };
}

function add(into: Spend, g: { cost: number; events: number }): void {
  into.cost_micro_usd += g.cost;
  into.events += g.events;
}
