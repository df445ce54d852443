/**
 * /v1/benchmarks (spec §4.3 "Attestations, NAV, benchmarks", API key with the "records" scope).
 * Thin: each route validates, calls one service function and shapes the answer. Rules:
 * service.ts and methodology.ts; docs: docs/benchmarks.md.
 *
 *   POST /v1/benchmarks/portfolio                 metered; 201 with the first signed result
 *   GET  /v1/benchmarks/cohorts                   banded counts ("<N" below the minimum)
 *   GET  /v1/benchmarks/:benchmarkId              another account's id answers 404
 *   GET  /v1/benchmarks/:benchmarkId/history      result versions, newest first
 *   POST /v1/benchmarks/:benchmarkId/refresh      a new result against today's cohort; 409 once the holdings are destroyed
 */
import { Elysia } from "elysia";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { HISTORY_LIMIT } from "./limits.ts";
import { METHODOLOGY_VERSION } from "./methodology.ts";
import * as M from "./models.ts";
import { benchmarkHistory, createBenchmark, getBenchmark, listCohorts, refreshBenchmark } from "./service.ts";

const tags = ["benchmarks"];
const security = [{ apiKey: [] }];

export function benchmarkRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/benchmarks" })
    .use(guards.apiKey(ctx, "records"))
    .post(
      "/portfolio",
      async ({ principal, body, set }) => {
        const benchmark = await createBenchmark(ctx, { accountId: principal.accountId, keyId: principal.keyId }, body);
        set.status = 201;
        return benchmark;
      },
      {
        body: M.PortfolioBody,
        response: { 201: M.Benchmark, ...errors(402, 501) },
        detail: {
          summary: "Benchmark a portfolio's period return against its banded peer cohort (holdings sealed, destroyed by the chosen retention)",
          description:
            "Peer figures (quartiles, median, rank) are released only when the cohort holds at least benchmarks.min_cohort_size other accounts; otherwise they are null with the reason. privacy_tier confidential answers 501. See docs/benchmarks.md.",
          tags,
          security,
        },
      },
    )
    .get(
      "/cohorts",
      ({ query }) => namedList("cohorts", listCohorts(ctx, query.period ?? null), { min_cohort_size: ctx.config.benchmarks.min_cohort_size, methodology_version: METHODOLOGY_VERSION }),
      {
        query: M.CohortsQuery,
        response: { 200: M.Cohorts },
        detail: { summary: "Accounts per cohort band (counts only; \"<N\" below the minimum cohort size)", tags, security },
      },
    )
    .get("/:benchmarkId", ({ principal, params }) => getBenchmark(ctx, principal.accountId, params.benchmarkId), {
      params: M.BenchmarkParams,
      response: { 200: M.Benchmark },
      detail: { summary: "One benchmark with its latest signed result", tags, security },
    })
    .get(
      "/:benchmarkId/history",
      ({ principal, params, query }) =>
        namedList("versions", benchmarkHistory(ctx, principal.accountId, params.benchmarkId, parseLimit(query.limit, HISTORY_LIMIT)), { benchmark_id: params.benchmarkId }),
      {
        params: M.BenchmarkParams,
        query: M.HistoryQuery,
        response: { 200: M.History },
        detail: { summary: "A benchmark's signed result versions, newest first ({versions, benchmark_id}; limit 1-200, default 50)", tags, security },
      },
    )
    .post("/:benchmarkId/refresh", ({ principal, params }) => refreshBenchmark(ctx, principal.accountId, params.benchmarkId), {
      params: M.BenchmarkParams,
      response: { 200: M.Benchmark, ...errors(409) },
      detail: {
        summary: "Recompute the peer figures against the current cohort from the sealed holdings, as a new result version (409 holdings_destroyed once they are gone)",
        tags,
        security,
      },
    });
}
