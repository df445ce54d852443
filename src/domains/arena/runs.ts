/**
 * Benchmark runs: a model over one suite version, through the evals runner, paid by the account
 * the operator names (`svc arena run`). The rules:
 *
 * - Every case call (and judge call) is one metered chat call with its own signed receipt, on
 *   the account's credit with no key (work an operator starts), serving exactly the model named
 *   (no account model route rewrites it). Each receipt is chained into the run: its run_id is
 *   the run's id.
 * - The first failing call fails the run, as in an eval run: the run is stored as failed with
 *   what it had spent and never ranks.
 * - The run's own record is a signed statement (type arena-run) of the suite, its methodology
 *   version and cases_sha256, the model, passed/total, the cost, the sha256 of the content-free
 *   results and every receipt id; it is what GET /v1/arena/runs/:id serves with the receipts.
 * - Stored: verdicts, fixed reason phrases, sha256 of outputs, costs, receipt ids. Outputs are
 *   never stored (the caller sees them once).
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { sha256Hex } from "../../core/secrets.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { getAccount } from "../accounts/index.ts";
import { type CaseResult, runCaseSet } from "../evals/index.ts";
import { checkChatModel } from "../inference/index.ts";
import { receiptsOfRun } from "../receipts/index.ts";
import { RUN_STATEMENT_TYPE, RUN_STATEMENT_VERSION } from "./limits.ts";
import { insertRun, type RunRow, runRow, suiteVersion } from "./store.ts";
import { openSuiteCases, requireSuite } from "./suites.ts";

export interface StartRun {
  suite: string;
  /** Default: the suite's current version. */
  version?: string;
  model: string;
  /** The account that pays (the operator's). */
  accountId: string;
  signal?: AbortSignal;
}

export interface RunView {
  id: string;
  suite: string;
  methodology_version: string;
  cases_sha256: string;
  model: string;
  status: "completed" | "failed";
  error: { type: string; message: string } | null;
  passed: number | null;
  total: number;
  pass_rate: number | null;
  cost_micro_usd: number;
  results: CaseResult[];
  receipts: { receipt_id: string; receipt: string; signature: string; signer: string }[];
  statement: { statement: string; signature: string; signer: string };
  created_at: string;
  completed_at: string;
  verify: string;
}

/** What the run's signed statement says: integers, strings and null only (canonical JSON). */
function statementPayload(row: Omit<RunRow, "seq" | "statement" | "signature" | "signer">, casesSha: string): Record<string, unknown> {
  return {
    v: RUN_STATEMENT_VERSION,
    type: RUN_STATEMENT_TYPE,
    id: row.id,
    suite: row.suite_slug,
    methodology_version: row.methodology_version,
    cases_sha256: casesSha,
    model: row.model,
    status: row.status,
    error_type: row.error_type,
    passed: row.passed,
    total: row.total,
    cost_micro_usd: row.cost_micro_usd,
    results_sha256: sha256Hex(canonicalJson(JSON.parse(row.results))),
    receipt_ids: JSON.parse(row.receipt_ids) as string[],
    started_at: isoTime(row.created_at),
    completed_at: isoTime(row.completed_at),
  };
}

function view(ctx: Context, row: RunRow): RunView {
  const suite = suiteVersion(ctx, row.suite_slug, row.methodology_version)!;
  const ids = JSON.parse(row.receipt_ids) as string[];
  const listed = new Set(ids);
  // Only the run's own calls: the paying account could chain other receipts into the same run id.
  const receipts = receiptsOfRun(ctx, row.account_id, row.id)
    .filter((r) => listed.has(r.id))
    .map((r) => ({ receipt_id: r.id, receipt: r.receipt, signature: r.signature, signer: r.signer }));
  const base = ctx.config.public_url;
  return {
    id: row.id,
    suite: row.suite_slug,
    methodology_version: row.methodology_version,
    cases_sha256: suite.cases_sha256,
    model: row.model,
    status: row.status,
    error: row.error_type === null ? null : { type: row.error_type, message: row.error_message ?? "" },
    passed: row.passed,
    total: row.total,
    pass_rate: row.passed === null ? null : row.passed / row.total,
    cost_micro_usd: row.cost_micro_usd,
    results: JSON.parse(row.results) as CaseResult[],
    receipts,
    statement: { statement: row.statement, signature: row.signature, signer: row.signer },
    created_at: isoTime(row.created_at),
    completed_at: isoTime(row.completed_at),
    verify:
      `recover each EIP-191 signer (statement and every receipt) and compare it with GET ${base}/v1/receipts/pubkey, or POST each to ${base}/v1/receipts/verify; ` +
      "decode the statement (base64url canonical JSON): its receipt_ids are the receipts listed here, each receipt's run_id is this run's id and their cost_micro_usd sum to the statement's; " +
      "results_sha256 is the sha256 of the canonical JSON of results (docs/arena.md)",
  };
}

/**
 * Runs a model over a suite version and stores the run, completed or failed. Throws before any
 * call for an unknown suite, version, account or model; a call that fails is the failed run's
 * error (returned, not thrown: the run exists either way).
 */
export async function runSuite(ctx: Context, input: StartRun): Promise<RunView> {
  const suite = requireSuite(ctx, input.suite, input.version);
  getAccount(ctx, input.accountId);
  checkChatModel(ctx, input.model, "model", input.accountId);
  const cases = openSuiteCases(ctx, suite);
  const id = newId("arun");
  const startedAt = ctx.clock.now();
  // A judge case without its own judge has the suite's (addSuite made sure there is one).
  const outcome = await runCaseSet(ctx, { accountId: input.accountId, keyId: null }, cases, input.model, {
    judgeModel: suite.judge_model ?? input.model,
    runId: id,
    signal: input.signal,
  });
  const passed = outcome.error ? null : outcome.results.filter((r) => r.passed).length;
  const row: Omit<RunRow, "seq" | "statement" | "signature" | "signer"> = {
    id,
    suite_slug: suite.slug,
    methodology_version: suite.methodology_version,
    account_id: input.accountId,
    model: input.model,
    status: outcome.error ? "failed" : "completed",
    error_type: outcome.error?.type ?? null,
    error_message: outcome.error?.message ?? null,
    passed,
    total: cases.length,
    cost_micro_usd: outcome.cost_micro_usd,
    receipt_ids: JSON.stringify(outcome.receipt_ids),
    results: JSON.stringify(outcome.results),
    created_at: startedAt,
    completed_at: ctx.clock.now(),
  };
  const signed = signStatement(ctx.signer, statementPayload(row, suite.cases_sha256));
  const stored = { ...row, statement: signed.statement, signature: signed.signature, signer: signed.signer };
  ctx.tx.run(() => {
    insertRun(ctx, stored);
    ctx.audit.record("cli", "arena.run", id, { suite: suite.slug, methodology_version: suite.methodology_version, model: input.model, account_id: input.accountId, status: row.status });
  });
  return view(ctx, { ...stored, seq: 0 });
}

/** A run, for anyone (404 for an unknown id). */
export function getRun(ctx: Context, id: string): RunView {
  const row = runRow(ctx, id);
  if (!row) throw notFound("run");
  return view(ctx, row);
}
