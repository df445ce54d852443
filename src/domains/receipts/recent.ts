/**
 * The account's newest receipts with their decoded payloads, for areas that read what receipts
 * say (guardrail findings scan their `guardrails` attestations) without reading the table.
 */
import type { Context } from "../../context.ts";
import { decodeReceipt, type Payload } from "./verify.ts";

export interface RecentReceipt {
  id: string;
  key_id: string | null;
  kind: string;
  created_at: number;
  payload: Payload;
}

/** Newest first, at most `limit`. */
export function recentReceipts(ctx: Context, accountId: string, limit: number): RecentReceipt[] {
  const rows = ctx.db
    .query<{ id: string; key_id: string | null; kind: string; created_at: number; receipt: string }, [string, number]>("SELECT id, key_id, kind, created_at, receipt FROM receipts WHERE account_id = ? ORDER BY seq DESC LIMIT ?")
    .all(accountId, limit);
  const out: RecentReceipt[] = [];
  for (const r of rows) {
    const payload = decodeReceipt(r.receipt);
    if (payload) out.push({ id: r.id, key_id: r.key_id, kind: r.kind, created_at: r.created_at, payload });
  }
  return out;
}
