/**
 * One account's receipts in aggregate, for records that state a track record (the passport):
 * how many it holds and since when, and its receipts in minting order for a reader that checks
 * each one's signature once and remembers how far it got.
 */
import type { Context } from "../../context.ts";

export interface AccountReceiptTotals {
  /** Receipts the account holds now (retention may have removed older ones). */
  count: number;
  /** The newest receipt's seq, 0 when there is none. */
  last_seq: number;
}

export function receiptTotalsOf(ctx: Context, accountId: string): AccountReceiptTotals {
  const r = ctx.db.query<{ n: number; last: number | null }, [string]>("SELECT count(*) AS n, max(seq) AS last FROM receipts WHERE account_id = ?").get(accountId)!;
  return { count: r.n, last_seq: r.last ?? 0 };
}

export interface AccountReceiptRow {
  seq: number;
  run_id: string | null;
  receipt: string;
  signature: string;
}

/** The account's receipts with seq above `afterSeq`, oldest first, at most `limit`. */
export function accountReceiptsAfter(ctx: Context, accountId: string, afterSeq: number, limit: number): AccountReceiptRow[] {
  return ctx.db
    .query<AccountReceiptRow, [string, number, number]>("SELECT seq, run_id, receipt, signature FROM receipts WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?")
    .all(accountId, afterSeq, limit);
}
