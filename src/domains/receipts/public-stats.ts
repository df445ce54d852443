/**
 * What the public may learn of receipts in aggregate (the explorer, anchor pages): counts, and
 * receipts only where their owners chose to share them.
 */
import type { Context } from "../../context.ts";

export interface ReceiptCounts {
  minted: number;
  shared: number;
}

export function receiptCounts(ctx: Context): ReceiptCounts {
  return {
    // seq only grows (AUTOINCREMENT), so its maximum counts every receipt ever minted, even ones retention removed, in O(1).
    minted: ctx.db.query<{ n: number | null }, []>("SELECT max(seq) AS n FROM receipts").get()?.n ?? 0,
    shared: ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM receipts WHERE shared_at IS NOT NULL").get()!.n,
  };
}

export interface SharedReceiptRow {
  id: string;
  kind: string;
  status: string;
  cost_micro_usd: number;
  created_at: number;
  shared_at: number;
}

/** The most recently shared receipts, newest share first. */
export function recentlyShared(ctx: Context, limit: number): SharedReceiptRow[] {
  return ctx.db
    .query<SharedReceiptRow, [number]>("SELECT id, kind, status, cost_micro_usd, created_at, shared_at FROM receipts WHERE shared_at IS NOT NULL ORDER BY shared_at DESC, seq DESC LIMIT ?")
    .all(limit);
}

/** Which of these receipt ids their owners share. */
export function sharedAmong(ctx: Context, ids: readonly string[]): Set<string> {
  if (!ids.length) return new Set();
  const rows = ctx.db.query<{ id: string }, [string]>("SELECT id FROM receipts WHERE id IN (SELECT value FROM json_each(?)) AND shared_at IS NOT NULL").all(JSON.stringify(ids));
  return new Set(rows.map((r) => r.id));
}

/** Receipts minted after `seq`, oldest first: what the next anchor batch covers. */
export function receiptsAfter(ctx: Context, seq: number, limit: number): { seq: number; id: string; receipt: string }[] {
  return ctx.db.query<{ seq: number; id: string; receipt: string }, [number, number]>("SELECT seq, id, receipt FROM receipts WHERE seq > ? ORDER BY seq LIMIT ?").all(seq, limit);
}
