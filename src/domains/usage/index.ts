/**
 * Usage: metering events, summaries, statements, CSV and the live SSE feed (/v1/usage/*).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { closedPeriod, instant, INSTANT_PATTERN, orderedPeriod, type Period, TIME_ERROR } from "./period.ts";
/** Inference calls, spend and tokens per model over a period (the autopilot's evidence). */
export { inferenceUsageByModel, type ModelUsage } from "./by-model.ts";
/** Usage events and spend over the account's whole history (the passport's figures). */
export { usageTotalsOf, type UsageTotals } from "./totals.ts";
