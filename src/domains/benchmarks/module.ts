/**
 * Portfolio benchmarks: sealed holdings compared against banded peer cohorts, released only above a minimum cohort size (/v1/benchmarks/*; docs/benchmarks.md).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { benchmarksConfig } from "./config.ts";
import { registerBenchmarkJobs } from "./retention.ts";
import { benchmarkRoutes } from "./routes.ts";

export const benchmarksModule = defineModule({ name: "benchmarks", config: benchmarksConfig, routes: (ctx) => [benchmarkRoutes(ctx)], jobs: registerBenchmarkJobs });
