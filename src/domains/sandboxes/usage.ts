/**
 * GET /v1/usage/sandboxes and /v1/usage/sandboxes/:id (session class): what the account's
 * sandboxes cost — sessions (execs and alive time) and one-shot runs, newest first, at most
 * 100 — and one of them with its execs. The receipts of each are in the receipts area
 * (receipt_id on every exec; /v1/usage/events?kind=sandbox_session for alive time).
 */
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { LIST_CAP } from "./models.ts";
import type { LanguageName } from "./runner/index.ts";
import { sessionRow } from "./sessions.ts";

export interface UsageRowView {
  id: string;
  kind: "session" | "one_shot";
  language: LanguageName | null;
  status: string;
  node_id: string | null;
  created_at: string;
  ended_at: string | null;
  alive_seconds: number | null;
  exec_count: number;
  cost_micro_usd: number;
}

interface Joined {
  id: string;
  kind: "session" | "one_shot";
  language: LanguageName | null;
  status: string;
  node_id: string | null;
  created_at: number;
  ended_at: number | null;
  exec_count: number;
  cost: number;
}

interface RunRow {
  id: string;
  account_id: string;
  session_id: string | null;
  node_id: string | null;
  language: LanguageName | null;
  status: string;
  exit_code: number | null;
  timed_out: number;
  duration_ms: number;
  cost_micro_usd: number;
  receipt_id: string | null;
  run_id: string | null;
  created_at: number;
}

function rowView(ctx: Context, r: Joined): UsageRowView {
  const end = r.ended_at ?? ctx.clock.now();
  return {
    id: r.id,
    kind: r.kind,
    language: r.language,
    status: r.status,
    node_id: r.node_id,
    created_at: isoTime(r.created_at),
    ended_at: r.ended_at === null ? null : isoTime(r.ended_at),
    alive_seconds: r.kind === "session" ? Math.max(0, Math.floor((end - r.created_at) / 1000)) : null,
    exec_count: r.exec_count,
    cost_micro_usd: r.cost,
  };
}

export function sandboxUsage(ctx: Context, accountId: string): UsageRowView[] {
  return ctx.db
    .query<Joined, [string, number]>(
      `SELECT id, 'session' AS kind, language, status, node_id, created_at, stopped_at AS ended_at, exec_count,
              exec_cost_micro_usd + alive_cost_micro_usd AS cost
         FROM sandbox_sessions WHERE account_id = ?1
       UNION ALL
       SELECT id, 'one_shot' AS kind, language, status, node_id, created_at, created_at + duration_ms AS ended_at, 1 AS exec_count, cost_micro_usd AS cost
         FROM sandbox_runs WHERE account_id = ?1 AND session_id IS NULL
       ORDER BY created_at DESC, id DESC LIMIT ?2`,
    )
    .all(accountId, LIST_CAP)
    .map((r) => rowView(ctx, r));
}

const execView = (r: RunRow) => ({
  id: r.id,
  language: r.language,
  status: r.status,
  exit_code: r.exit_code,
  timed_out: r.timed_out === 1,
  duration_ms: r.duration_ms,
  cost_micro_usd: r.cost_micro_usd,
  receipt_id: r.receipt_id,
  run_id: r.run_id,
  created_at: isoTime(r.created_at),
});

const RUN_COLUMNS = "id, account_id, session_id, node_id, language, status, exit_code, timed_out, duration_ms, cost_micro_usd, receipt_id, run_id, created_at";

/** One session (its execs, newest first, at most 100) or one one-shot run (itself); another tenant's is 404. */
export function sandboxUsageOf(ctx: Context, accountId: string, id: string) {
  const session = sessionRow(ctx, id);
  if (session && session.account_id === accountId) {
    const execs = ctx.db
      .query<RunRow, [string, number]>(`SELECT ${RUN_COLUMNS} FROM sandbox_runs WHERE session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`)
      .all(id, LIST_CAP);
    const row: Joined = {
      id,
      kind: "session",
      language: session.language,
      status: session.status,
      node_id: session.node_id,
      created_at: session.created_at,
      ended_at: session.stopped_at,
      exec_count: session.exec_count,
      cost: session.exec_cost_micro_usd + session.alive_cost_micro_usd,
    };
    return { ...rowView(ctx, row), exec_cost_micro_usd: session.exec_cost_micro_usd, alive_cost_micro_usd: session.alive_cost_micro_usd, execs: execs.map(execView) };
  }
  const run = ctx.db.query<RunRow, [string]>(`SELECT ${RUN_COLUMNS} FROM sandbox_runs WHERE id = ? AND session_id IS NULL`).get(id);
  if (!run || run.account_id !== accountId) throw notFound("sandbox");
  const row: Joined = { id, kind: "one_shot", language: run.language, status: run.status, node_id: run.node_id, created_at: run.created_at, ended_at: run.created_at + run.duration_ms, exec_count: 1, cost: run.cost_micro_usd };
  return { ...rowView(ctx, row), exec_cost_micro_usd: run.cost_micro_usd, alive_cost_micro_usd: 0, execs: [execView(run)] };
}
