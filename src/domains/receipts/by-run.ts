/**
 * Receipts grouped by run (svc_run_id): the queries the runs area builds its lists, details
 * and proofs on. A run exists while it has receipts, scoped to its account.
 */
import type { Context } from "../../context.ts";

/** One run as its receipts total it. */
export interface RunTotals {
  run_id: string;
  /** Receipts in the run. */
  n: number;
  cost: number;
  first_at: number;
  last_at: number;
  /** The newest receipt's seq: with n, it pins "the run as it is now" for a cached root. */
  last_seq: number;
  /** JSON array of the distinct kinds. */
  kinds: string;
}

const TOTALS = `run_id, count(*) AS n, sum(cost_micro_usd) AS cost, min(created_at) AS first_at, max(created_at) AS last_at,
  max(seq) AS last_seq, json_group_array(DISTINCT kind) AS kinds`;

/** The account's runs, newest activity first, at most `limit`. */
export function runTotalsOf(ctx: Context, accountId: string, limit: number): RunTotals[] {
  return ctx.db
    .query<RunTotals, [string, number]>(
      `SELECT ${TOTALS} FROM receipts WHERE account_id = ? AND run_id IS NOT NULL
       GROUP BY run_id ORDER BY last_at DESC, last_seq DESC LIMIT ?`,
    )
    .all(accountId, limit);
}

/** One run's totals, or null for an unknown (or another account's) run. */
export function runTotals(ctx: Context, accountId: string, runId: string): RunTotals | null {
  return ctx.db.query<RunTotals, [string, string]>(`SELECT ${TOTALS} FROM receipts WHERE account_id = ? AND run_id = ? GROUP BY run_id`).get(accountId, runId);
}

export interface RunReceiptRow {
  seq: number;
  id: string;
  key_id: string | null;
  kind: string;
  status: string;
  cost_micro_usd: number;
  receipt: string;
  signature: string;
  signer: string;
  created_at: number;
}

/** The run's receipts in minting order. */
export function receiptsOfRun(ctx: Context, accountId: string, runId: string): RunReceiptRow[] {
  return ctx.db
    .query<RunReceiptRow, [string, string]>(
      "SELECT seq, id, key_id, kind, status, cost_micro_usd, receipt, signature, signer, created_at FROM receipts WHERE account_id = ? AND run_id = ? ORDER BY seq",
    )
    .all(accountId, runId);
}

/** How many distinct runs have receipts, across all accounts (the explorer's count). */
export function countRuns(ctx: Context): number {
  return ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM (SELECT 1 FROM receipts WHERE run_id IS NOT NULL GROUP BY account_id, run_id)").get()!.n;
}
