/**
 * GET /v1/usage: the account's usage at a glance (spec §8: 25 recent events + 14 daily
 * buckets by default; ?days= asks for 1 to 90). Days are UTC calendar days, the last one being today (so far); a day without
 * usage is still listed, with zeros, so a chart needs no gap filling.
 */
import { EVENT_COLUMNS, eventView, type UsageEventRow, type UsageEventView } from "./events.ts";
import type { Context } from "../../context.ts";

export const RECENT_EVENTS = 25;
export const DAILY_BUCKETS = 14;
/** ?days= bounds: the console's 30-day chart asks for more than the default. */
export const DAYS_LIMIT = { min: 1, max: 90, default: DAILY_BUCKETS } as const;
const DAY_MS = 86_400_000;

export interface Spend {
  cost_micro_usd: number;
  events: number;
}

export interface SpendByKind extends Spend {
  by_kind: Record<string, Spend>;
}

export interface UsageSummary {
  recent: UsageEventView[];
  daily: (SpendByKind & { date: string })[];
  totals: SpendByKind & { from: string; to: string; days: number };
}

const empty = (): SpendByKind => ({ cost_micro_usd: 0, events: 0, by_kind: {} });

/** Adds a group's figures to a total and to its kind's line. */
export function addSpend(into: SpendByKind, kind: string, cost: number, events: number): void {
  into.cost_micro_usd += cost;
  into.events += events;
  const line = (into.by_kind[kind] ??= { cost_micro_usd: 0, events: 0 });
  line.cost_micro_usd += cost;
  line.events += events;
}

export function usageSummary(ctx: Context, accountId: string, days: number = DAILY_BUCKETS): UsageSummary {
  const now = ctx.clock.now();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const start = today - (days - 1) * DAY_MS;
  const end = today + DAY_MS;
  const recent = ctx.db
    .query<UsageEventRow, [string, number]>(`SELECT ${EVENT_COLUMNS} FROM usage_events WHERE account_id = ? ORDER BY seq DESC LIMIT ?`)
    .all(accountId, RECENT_EVENTS)
    .map(eventView);
  const groups = ctx.db
    .query<{ day: number; kind: string; cost: number; events: number }, [number, string, number]>(
      `SELECT (created_at - ?1) / ${DAY_MS} AS day, kind, sum(cost_micro_usd) AS cost, count(*) AS events
       FROM usage_events WHERE account_id = ?2 AND created_at >= ?1 AND created_at < ?3
       GROUP BY day, kind ORDER BY day, kind`,
    )
    .all(start, accountId, end);
  const daily = Array.from({ length: days }, (_, i) => ({ date: new Date(start + i * DAY_MS).toISOString().slice(0, 10), ...empty() }));
  const totals = empty();
  for (const g of groups) {
    addSpend(daily[g.day]!, g.kind, g.cost, g.events);
    addSpend(totals, g.kind, g.cost, g.events);
  }
  return { recent, daily, totals: { from: daily[0]!.date, to: daily[days - 1]!.date, days, ...totals } };
}
