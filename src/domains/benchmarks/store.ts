/** The rows of benchmarks and benchmark_results: the only file that names those tables in SQL. */
import type { Context } from "../../context.ts";

export interface BenchmarkRow {
  id: string;
  account_id: string;
  key_id: string | null;
  label: string | null;
  period: string;
  mix_band: string;
  size_band: string;
  cohort: string;
  return_bps: number;
  methodology_version: string;
  privacy_tier: string;
  retention: string;
  holdings_count: number;
  holdings_sealed: string | null;
  holdings_expires_at: number | null;
  holdings_destroyed_at: number | null;
  created_at: number;
}

export interface ResultRow {
  benchmark_id: string;
  seq: number;
  statement: string;
  signature: string;
  signer: string;
  receipt_id: string | null;
  computed_at: number;
}

export function insertBenchmark(ctx: Context, b: BenchmarkRow): void {
  ctx.db
    .query(
      `INSERT INTO benchmarks (id, account_id, key_id, label, period, mix_band, size_band, cohort, return_bps, methodology_version, privacy_tier, retention,
                               holdings_count, holdings_sealed, holdings_expires_at, holdings_destroyed_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(b.id, b.account_id, b.key_id, b.label, b.period, b.mix_band, b.size_band, b.cohort, b.return_bps, b.methodology_version, b.privacy_tier, b.retention,
      b.holdings_count, b.holdings_sealed, b.holdings_expires_at, b.holdings_destroyed_at, b.created_at);
}

export const benchmarkById = (ctx: Context, id: string): BenchmarkRow | null =>
  ctx.db.query<BenchmarkRow, [string]>("SELECT * FROM benchmarks WHERE id = ?").get(id) ?? null;

export function insertResult(ctx: Context, r: ResultRow): void {
  ctx.db
    .query("INSERT INTO benchmark_results (benchmark_id, seq, statement, signature, signer, receipt_id, computed_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .run(r.benchmark_id, r.seq, r.statement, r.signature, r.signer, r.receipt_id, r.computed_at);
}

export const nextSeq = (ctx: Context, benchmarkId: string): number =>
  (ctx.db.query<{ seq: number | null }, [string]>("SELECT max(seq) AS seq FROM benchmark_results WHERE benchmark_id = ?").get(benchmarkId)?.seq ?? 0) + 1;

export const latestResult = (ctx: Context, benchmarkId: string): ResultRow =>
  ctx.db.query<ResultRow, [string]>("SELECT * FROM benchmark_results WHERE benchmark_id = ? ORDER BY seq DESC LIMIT 1").get(benchmarkId)!;

export const resultsOf = (ctx: Context, benchmarkId: string, limit: number): ResultRow[] =>
  ctx.db.query<ResultRow, [string, number]>("SELECT * FROM benchmark_results WHERE benchmark_id = ? ORDER BY seq DESC LIMIT ?").all(benchmarkId, limit);

/**
 * The cohort's other members: for each other account, its latest benchmark in the cohort under
 * the same methodology (rowid order is insertion order), so one account counts once however
 * many benchmarks it submits.
 */
export const peerReturns = (ctx: Context, cohort: string, methodology: string, excludeAccountId: string): number[] =>
  ctx.db
    .query<{ return_bps: number }, [string, string, string]>(
      `SELECT return_bps FROM benchmarks WHERE rowid IN (
         SELECT max(rowid) FROM benchmarks WHERE cohort = ?1 AND methodology_version = ?2 AND account_id != ?3 GROUP BY account_id)`,
    )
    .all(cohort, methodology, excludeAccountId)
    .map((r) => r.return_bps);

export interface CohortCount {
  cohort: string;
  period: string;
  mix_band: string;
  size_band: string;
  accounts: number;
}

/** Distinct accounts per cohort under one methodology, most recent periods first, largest first within a period. */
export const cohortCounts = (ctx: Context, methodology: string, period: string | null, limit: number): CohortCount[] =>
  ctx.db
    .query<CohortCount, [string, string | null, number]>(
      `SELECT cohort, period, mix_band, size_band, count(DISTINCT account_id) AS accounts FROM benchmarks
       WHERE methodology_version = ?1 AND (?2 IS NULL OR period = ?2)
       GROUP BY cohort ORDER BY period DESC, accounts DESC, cohort LIMIT ?3`,
    )
    .all(methodology, period, limit);

/** Forgets one benchmark's sealed holdings; false when they were already gone. */
export const destroyHoldings = (ctx: Context, id: string, now: number): boolean =>
  ctx.db.query("UPDATE benchmarks SET holdings_sealed = NULL, holdings_destroyed_at = ? WHERE id = ? AND holdings_sealed IS NOT NULL").run(now, id).changes > 0;

export const expiredHoldings = (ctx: Context, now: number, limit: number): string[] =>
  ctx.db
    .query<{ id: string }, [number, number]>("SELECT id FROM benchmarks WHERE holdings_sealed IS NOT NULL AND holdings_expires_at <= ? ORDER BY holdings_expires_at LIMIT ?")
    .all(now, limit)
    .map((r) => r.id);
