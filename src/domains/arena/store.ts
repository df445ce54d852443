/**
 * The arena's rows (arena_suites, arena_runs: migrations/0039_arena.sql) and the only SQL that
 * names them. Suites and runs are public records, so reads are not scoped to an account.
 */
import type { Context } from "../../context.ts";

export interface SuiteRow {
  seq: number;
  slug: string;
  methodology_version: string;
  name: string;
  description: string | null;
  judge_model: string | null;
  publish_cases: number;
  case_count: number;
  asserts: string;
  cases_sha256: string;
  definition_sha256: string;
  cases: string;
  created_at: number;
}

export interface RunRow {
  seq: number;
  id: string;
  suite_slug: string;
  methodology_version: string;
  account_id: string;
  model: string;
  status: "completed" | "failed";
  error_type: string | null;
  error_message: string | null;
  passed: number | null;
  total: number;
  cost_micro_usd: number;
  receipt_ids: string;
  results: string;
  statement: string;
  signature: string;
  signer: string;
  created_at: number;
  completed_at: number;
}

// suites

export const suiteVersion = (ctx: Context, slug: string, version: string): SuiteRow | null =>
  ctx.db.query<SuiteRow, [string, string]>("SELECT * FROM arena_suites WHERE slug = ? AND methodology_version = ?").get(slug, version);

/** The newest version of a slug: the current one. */
export const currentSuite = (ctx: Context, slug: string): SuiteRow | null =>
  ctx.db.query<SuiteRow, [string]>("SELECT * FROM arena_suites WHERE slug = ? ORDER BY seq DESC LIMIT 1").get(slug);

/** Every slug's current version, by slug. */
export const currentSuites = (ctx: Context, limit: number): SuiteRow[] =>
  ctx.db
    .query<SuiteRow, [number]>("SELECT s.* FROM arena_suites s JOIN (SELECT max(seq) AS seq FROM arena_suites GROUP BY slug) c ON c.seq = s.seq ORDER BY s.slug LIMIT ?")
    .all(limit);

/** A slug's versions, oldest first. */
export const versionsOf = (ctx: Context, slug: string): string[] =>
  ctx.db.query<{ v: string }, [string]>("SELECT methodology_version AS v FROM arena_suites WHERE slug = ? ORDER BY seq").all(slug).map((r) => r.v);

export function insertSuite(ctx: Context, row: Omit<SuiteRow, "seq">): void {
  ctx.db
    .query(
      `INSERT INTO arena_suites (slug, methodology_version, name, description, judge_model, publish_cases, case_count, asserts, cases_sha256, definition_sha256, cases, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(row.slug, row.methodology_version, row.name, row.description, row.judge_model, row.publish_cases, row.case_count, row.asserts, row.cases_sha256, row.definition_sha256, row.cases, row.created_at);
}

// runs

export const runRow = (ctx: Context, id: string): RunRow | null => ctx.db.query<RunRow, [string]>("SELECT * FROM arena_runs WHERE id = ?").get(id);

export function insertRun(ctx: Context, row: Omit<RunRow, "seq">): void {
  ctx.db
    .query(
      `INSERT INTO arena_runs (id, suite_slug, methodology_version, account_id, model, status, error_type, error_message, passed, total, cost_micro_usd,
         receipt_ids, results, statement, signature, signer, created_at, completed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.id, row.suite_slug, row.methodology_version, row.account_id, row.model, row.status, row.error_type, row.error_message, row.passed, row.total, row.cost_micro_usd,
      row.receipt_ids, row.results, row.statement, row.signature, row.signer, row.created_at, row.completed_at,
    );
}

export const completedRunCount = (ctx: Context, slug: string, version: string): number =>
  ctx.db.query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM arena_runs WHERE suite_slug = ? AND methodology_version = ? AND status = 'completed'").get(slug, version)!.n;

/** Each model's newest completed run on a suite version. */
export const newestCompletedByModel = (ctx: Context, slug: string, version: string): RunRow[] =>
  ctx.db
    .query<RunRow, [string, string]>(
      `SELECT r.* FROM arena_runs r
       JOIN (SELECT max(seq) AS seq FROM arena_runs WHERE suite_slug = ?1 AND methodology_version = ?2 AND status = 'completed' GROUP BY model) n ON n.seq = r.seq`,
    )
    .all(slug, version);
