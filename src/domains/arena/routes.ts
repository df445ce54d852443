/**
 * /v1/arena (spec §4.1: public, per-IP rate limited). Read-only: the operator adds suites and
 * starts runs from the CLI (cli.ts). Thin: rules in suites.ts, runs.ts, leaderboard.ts; docs:
 * docs/arena.md.
 *
 *   GET /v1/arena/suites              {suites}: each suite on its current version
 *   GET /v1/arena/suites/:slug        ?version= one version, with its cases if published
 *   GET /v1/arena/leaderboard         ?suite=&version= {leaderboards, ordered_by}
 *   GET /v1/arena/runs/:id            a run with its signed statement and every call's receipt
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { leaderboard, ORDERED_BY } from "./leaderboard.ts";
import * as M from "./models.ts";
import { getRun } from "./runs.ts";
import { getSuite, listSuites } from "./suites.ts";

const tags = ["arena"];

export function arenaRoutes(ctx: Context) {
  const open = new Elysia({ prefix: "/v1/arena" })
    .use(guards.public(ctx))
    .get("/suites", () => namedList("suites", listSuites(ctx)), {
      response: { 200: M.SuiteList },
      detail: { summary: "The arena's suites, each on its current methodology version ({suites})", tags },
    })
    // Elysia types CaseBody's mapped union of asserts as never; the response schema still checks the served cases.
    .get("/suites/:slug", ({ params, query }) => getSuite(ctx, params.slug, query.version) as never, {
      params: M.SuiteParams,
      query: M.SuiteQuery,
      response: { 200: M.SuiteDetail },
      detail: { summary: "One suite version (default: the current one): its fingerprint, asserts, versions, and its cases when published", tags },
    })
    .get("/leaderboard", ({ query }) => namedList("leaderboards", leaderboard(ctx, query), { ordered_by: ORDERED_BY }), {
      query: M.BoardQuery,
      // 404: ?suite= (or its ?version=) names none.
      response: { 200: M.Leaderboard, ...errors(404) },
      detail: { summary: "Ranked models per suite and methodology version ({leaderboards, ordered_by}); ?suite= for one suite", tags },
    })
    .get("/runs/:id", ({ params }) => getRun(ctx, params.id), {
      params: M.RunParams,
      response: { 200: M.Run },
      detail: { summary: "One benchmark run: content-free results, its signed statement and the signed receipt of every case call", tags },
    });
  return [open];
}
