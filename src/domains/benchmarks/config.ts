/** The benchmarks area's svc.toml section (benchmarks.*; docs/benchmarks.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";

export const BenchmarksSection = T.Object(
  {
    /** What POST /v1/benchmarks/portfolio costs. 0 still settles through the meter, so every benchmark has its signed receipt. */
    price_micro_usd: MicroUsd(),
    /**
     * Other accounts a cohort needs before any peer figure is released, and below which
     * GET /v1/benchmarks/cohorts shows "<N" instead of a count. At least 3: with 2, a peer's
     * own return would be readable from the median and the caller's rank.
     */
    min_cohort_size: T.Integer({ minimum: 3, maximum: 1000 }),
    /** How often the retention job looks for sealed holdings past their expiry. */
    sweep_interval_secs: T.Integer({ minimum: 10, maximum: 86_400 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    benchmarks: Static<typeof BenchmarksSection>;
  }
}

export const benchmarksConfig: ConfigPart = {
  sections: { benchmarks: { schema: BenchmarksSection, default: { price_micro_usd: 0, min_cohort_size: 5, sweep_interval_secs: 300 } } },
  env: [
    { name: "SVC_BENCHMARKS_PRICE_MICRO_USD", path: "benchmarks.price_micro_usd", type: "integer" },
    { name: "SVC_BENCHMARKS_MIN_COHORT_SIZE", path: "benchmarks.min_cohort_size", type: "integer" },
  ],
};
