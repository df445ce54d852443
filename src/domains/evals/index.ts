/**
 * Evals: test suites run against models through the meter, their runs, and drift monitors.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
/** The latest completed result of each (eval, model) pair (autopilot compares models with it). */
export { type EvalRunSummary, latestEvalRuns } from "./history.ts";
/** Run an eval now, metered on the account's credit, as POST /v1/evals/:id/run does. */
export { type RunOptions, type RunOutcome, runEval } from "./runs.ts";
export type { RunView } from "./run-views.ts";
/** Cases of no eval (the arena's suites): checked, run and graded as an eval's, the outcome handed back unstored. */
export { type CaseSetOptions, type CaseSetOutcome, runCaseSet } from "./runs.ts";
export { assertCounts, checkCases, type EvalCase } from "./cases.ts";
export { CaseBody } from "./models.ts";
export type { CaseResult } from "./store.ts";
