/**
 * The arena: receipted benchmark runs of models and engines over versioned eval suites (/v1/arena/*; docs/arena.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
/** Public records other areas may show (a passport's or the explorer's links): a run, the boards. */
export { getRun, type RunView } from "./runs.ts";
export { type Board, leaderboard } from "./leaderboard.ts";
