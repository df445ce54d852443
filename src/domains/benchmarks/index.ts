/**
 * Portfolio benchmarks: sealed holdings compared against banded peer cohorts, released only above a minimum cohort size (/v1/benchmarks/*; docs/benchmarks.md).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export {};
