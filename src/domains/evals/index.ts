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
