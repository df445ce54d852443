/**
 * POST /v1/terminal/run (spec §4.1): keyless code execution for a public "try it" terminal,
 * paid by the operator under a global daily budget and a per-client-address limit. Off by
 * default (terminal.enabled): then the route answers 404 with an empty body, as the spec says.
 *
 * Decisions, as for the keyless assistant (docs/inference.md):
 * - No meter and no receipt: there is no account to hold credit against. The terminal keeps
 *   its own ledger: the day's spend at the sandbox price, one row per UTC day (terminal_spend),
 *   and nothing of the code or its output.
 * - The budget is checked against the worst case: the day's spend (SQLite), what runs in
 *   flight may still cost (memory: one `svc serve` per database), and this run at its timeout.
 *   After the run its measured cost joins the day. An exhausted budget is 503
 *   terminal_budget_exhausted with Retry-After until midnight UTC; 429 is the per-IP limit.
 * - Runs are one-shots with the deployment's limits and terminal.max_timeout_ms, dispatched
 *   like any other (the gateway, or a node).
 */
import { DailyBudget } from "../../core/daily-budget.ts";
import type { Context } from "../../context.ts";
import { backendForNew } from "./dispatch.ts";
import { asApiError, sandboxFailed } from "./errors.ts";
import { exitCodeOf } from "./execution.ts";
import { limitsFor } from "./oneshot.ts";
import { costOfMs, runPrice } from "./pricing.ts";
import type { LanguageName } from "./runner/index.ts";


export interface TerminalInput {
  language: LanguageName;
  code: string;
  stdin?: string;
}

/** The terminal's day budget: core/daily-budget.ts over its own table (terminal_spend). */
export function terminalBudget(ctx: Context): DailyBudget {
  return new DailyBudget("terminal", ctx.clock, {
    spent: (day) => ctx.db.query<{ spent: number }, [string]>("SELECT spent_micro_usd AS spent FROM terminal_spend WHERE day = ?").get(day)?.spent ?? 0,
    add: (day, cost) =>
      void ctx.db
        .query("INSERT INTO terminal_spend (day, spent_micro_usd, runs) VALUES (?1, ?2, 1) ON CONFLICT (day) DO UPDATE SET spent_micro_usd = spent_micro_usd + ?2, runs = runs + 1")
        .run(day, cost),
  }, () => ctx.config.terminal.daily_budget_micro_usd);
}

export async function terminalRun(ctx: Context, budget: DailyBudget, input: TerminalInput, signal: AbortSignal) {
  const timeoutMs = ctx.config.terminal.max_timeout_ms;
  const price = runPrice(ctx.config.sandboxes, input.language);
  const backend = await backendForNew(ctx, input.language);
  const hold = budget.hold(costOfMs(price, timeoutMs));
  let cost = 0;
  try {
    const result = await backend.run({ language: input.language, code: input.code, stdin: input.stdin, timeoutMs, limits: limitsFor(timeoutMs) }, { signal });
    if (result.status === "runner_error") throw sandboxFailed(result.error ?? "the sandbox did not start");
    cost = costOfMs(price, Math.min(result.duration_ms, timeoutMs));
    return {
      status: result.status as "ok" | "error" | "timeout" | "killed",
      exit_code: exitCodeOf(result),
      stdout: result.stdout,
      stderr: result.stderr,
      truncated: result.stdout_truncated || result.stderr_truncated,
      timed_out: result.timed_out,
      duration_ms: result.duration_ms,
    };
  } catch (err) {
    throw asApiError(err);
  } finally {
    budget.finish(hold, cost);
  }
}
