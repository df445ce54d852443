/**
 * The leaderboard: per suite version, each model's newest completed run, ranked by pass rate.
 * The newest run counts, not the best one, so running a model again until it scores well does
 * not lift it. Models with the same pass rate share a rank (1, 2, 2, 4) and are listed by cost,
 * cheapest first, then by name. Failed runs never rank. A board is of one methodology version:
 * runs on another version measured something else.
 */
import { isoTime } from "../../core/clock.ts";
import { invalidField } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { MAX_BOARD_ENTRIES, MAX_SUITES_LISTED } from "./limits.ts";
import { currentSuites, newestCompletedByModel, type RunRow, type SuiteRow } from "./store.ts";
import { requireSuite } from "./suites.ts";

export const ORDERED_BY =
  "pass_rate desc per model's newest completed run on the methodology version; equal pass rates share a rank and are listed by cost_micro_usd asc, then model";

export interface BoardEntry {
  rank: number;
  model: string;
  run_id: string;
  passed: number;
  total: number;
  pass_rate: number;
  cost_micro_usd: number;
  completed_at: string;
}

export interface Board {
  suite: string;
  name: string;
  methodology_version: string;
  cases_sha256: string;
  case_count: number;
  entries: BoardEntry[];
}

// Compared as integers (passed × other total), so 2/4 and 1/2 tie exactly.
const compareRate = (a: RunRow, b: RunRow): number => b.passed! * a.total - a.passed! * b.total;

function board(ctx: Context, suite: SuiteRow): Board {
  const runs = newestCompletedByModel(ctx, suite.slug, suite.methodology_version).sort(
    (a, b) => compareRate(a, b) || a.cost_micro_usd - b.cost_micro_usd || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0),
  );
  const entries: BoardEntry[] = [];
  for (const [i, r] of runs.slice(0, MAX_BOARD_ENTRIES).entries()) {
    const previous = i > 0 ? runs[i - 1]! : null;
    const rank = previous && compareRate(previous, r) === 0 ? entries[i - 1]!.rank : i + 1;
    entries.push({
      rank,
      model: r.model,
      run_id: r.id,
      passed: r.passed!,
      total: r.total,
      pass_rate: r.passed! / r.total,
      cost_micro_usd: r.cost_micro_usd,
      completed_at: isoTime(r.completed_at),
    });
  }
  return { suite: suite.slug, name: suite.name, methodology_version: suite.methodology_version, cases_sha256: suite.cases_sha256, case_count: suite.case_count, entries };
}

/** One suite's board (its current version unless `version`), or every suite's current board. */
export function leaderboard(ctx: Context, query: { suite?: string; version?: string }): Board[] {
  if (query.suite === undefined && query.version !== undefined) throw invalidField("query.version", "names a version of one suite: give query.suite too");
  if (query.suite === undefined) return currentSuites(ctx, MAX_SUITES_LISTED).map((s) => board(ctx, s));
  return [board(ctx, requireSuite(ctx, query.suite, query.version))];
}
