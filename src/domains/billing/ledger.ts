/**
 * The account's ledger as the API shows it: newest entries first, keyset-paged by the
 * entry's sequence number behind an opaque cursor (spec §2.2). Entries written while a client
 * pages are newer than its first page, so a walk sees every entry that existed when it began
 * exactly once.
 */
import { isoTime } from "../../core/clock.ts";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import type { LedgerEntry } from "../../core/ledger.ts";
import type { Context } from "../../context.ts";

export const LEDGER_LIMIT = { min: 1, max: 1000, default: 200 };

export interface EntryView {
  id: string;
  kind: LedgerEntry["kind"];
  amount_micro_usd: number;
  balance_after_micro_usd: number;
  held_after_micro_usd: number;
  hold_id: string | null;
  ref_type: string | null;
  ref_id: string | null;
  memo: string | null;
  created_at: string;
}

/** A ledger entry as the API shows it (ISO time, no internal sequence number). */
export const entryView = (e: LedgerEntry): EntryView => ({
  id: e.id,
  kind: e.kind,
  amount_micro_usd: e.amount_micro_usd,
  balance_after_micro_usd: e.balance_after_micro_usd,
  held_after_micro_usd: e.held_after_micro_usd,
  hold_id: e.hold_id,
  ref_type: e.ref_type,
  ref_id: e.ref_id,
  memo: e.memo,
  created_at: isoTime(e.created_at),
});

const scope = (accountId: string) => `billing.ledger:${accountId}`;

export function ledgerPage(ctx: Context, accountId: string, query: { limit?: string; cursor?: string }) {
  const limit = parseLimit(query.limit, LEDGER_LIMIT);
  const before = query.cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(ctx.cursors.decode(scope(accountId), query.cursor)[0]);
  const rows = ctx.ledger.entriesBefore(accountId, before, limit + 1);
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return namedList("entries", page.map(entryView), {
    next_cursor: hasMore ? ctx.cursors.encode(scope(accountId), [page.at(-1)!.seq]) : null,
    has_more: hasMore,
  });
}

/** The account's latest entries, newest first (an operator's glance; the paged ledger is ledgerPage). */
export function recentEntries(ctx: Context, accountId: string, limit: number): EntryView[] {
  return ctx.ledger.entriesBefore(accountId, Number.MAX_SAFE_INTEGER, limit).map(entryView);
}
