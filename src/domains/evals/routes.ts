/**
 * /v1/evals (spec §4.4), session: evals, their runs, and drift monitors. Thin: each route
 * validates, calls one service function and shapes the answer. Rules: evals.ts, runs.ts,
 * monitors.ts; docs: docs/evals.md.
 *
 *   POST   /v1/evals                  {name, model, cases, threshold?}            → 201 the eval
 *   GET    /v1/evals                  → {evals}
 *   DELETE /v1/evals/:id              (its monitors and runs with it)
 *   POST   /v1/evals/:id/run          {model?}                                    → 201 the run, outputs once
 *   GET    /v1/evals/:id/runs         ?limit= → {runs}
 *   POST   /v1/evals/monitors         {eval_id, interval_s, drop_threshold, model?} → 201
 *   GET    /v1/evals/monitors         → {monitors}
 *   PATCH  /v1/evals/monitors/:id     {interval_s?, drop_threshold?, enabled?}
 *   DELETE /v1/evals/monitors/:id
 *
 * Spec §9.3 rule 3: /v1/evals/monitors is a literal that wins over /v1/evals/:id (the router
 * prefers a static segment to a parameter). Where it could still land on an eval route (DELETE
 * /v1/evals/monitors, POST /v1/evals/monitors/run), "monitors" is no eval's id — ids are eval_… —
 * so the answer is the unknown eval's 404, never an eval's data.
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { createEval, deleteEval, listEvals } from "./evals.ts";
import { listRuns } from "./history.ts";
import * as M from "./models.ts";
import { changeMonitor, createMonitor, deleteMonitor, listMonitors } from "./monitors.ts";
import { runEval } from "./runs.ts";

const tags = ["evals"];
const security = [{ session: [] }];
const doc = (summary: string, description?: string) => ({ detail: { summary, tags, security, ...(description ? { description } : {}) } });

function monitorRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/evals/monitors" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        set.status = 201;
        return createMonitor(ctx, principal.accountId, body);
      },
      {
        body: M.CreateMonitorBody,
        // 404 the eval (or model_not_found for model), 409 monitor_limit_reached (50 per account)
        response: { 201: M.Monitor, ...errors(404, 409) },
        ...doc(
          "Watch an eval for drift: run it every interval_s (hourly at most) and emit eval_drift_detected when its pass rate falls by drop_threshold",
          "The first run is due one interval from now. Each run is billed like POST /v1/evals/{id}/run, on the account's credit.",
        ),
      },
    )
    .get("", ({ principal }) => namedList("monitors", listMonitors(ctx, principal.accountId)), {
      response: { 200: M.MonitorList },
      ...doc("The account's eval monitors, oldest first ({monitors: [...]})"),
    })
    .patch("/:id", ({ principal, params, body }) => changeMonitor(ctx, principal.accountId, params.id, body), {
      params: M.MonitorParams,
      body: M.MonitorPatchBody,
      response: { 200: M.Monitor },
      ...doc("Change a monitor's interval, drop threshold or enabled flag", "A new interval or enabling re-times the next run: one interval after the last run, or now if that is past."),
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        deleteMonitor(ctx, principal.accountId, params.id);
        return { id: params.id, deleted: true as const };
      },
      { params: M.MonitorParams, response: { 200: M.MonitorDeleted }, ...doc("Delete a monitor (its past runs stay with the eval)") },
    );
}

function evalRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/evals" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        set.status = 201;
        return createEval(ctx, principal.accountId, body);
      },
      {
        body: M.CreateEvalBody,
        // 404 model_not_found (model, cases.N.judge_model), 409 eval_limit_reached (200 per account)
        response: { 201: M.Eval, ...errors(404, 409) },
        ...doc("Create an eval: test cases for a chat model (sealed at rest)", "Each case's assert kind decides which fields it takes; a misplaced or missing one is a 400 naming cases.N.field."),
      },
    )
    .get("", ({ principal }) => namedList("evals", listEvals(ctx, principal.accountId)), {
      response: { 200: M.EvalList },
      ...doc("The account's evals without their cases, oldest first, each with its latest run ({evals: [...]})"),
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        deleteEval(ctx, principal.accountId, params.id);
        return { id: params.id, deleted: true as const };
      },
      { params: M.EvalParams, response: { 200: M.EvalDeleted }, ...doc("Delete an eval with its monitors and runs (the calls they made stay billed and receipted)") },
    )
    .post(
      "/:id/run",
      async ({ principal, params, body, set, request }) => {
        const { run, outputs } = await runEval(ctx, principal.accountId, params.id, { model: body?.model, signal: request.signal });
        set.status = 201;
        return { ...run, results: run.results.map((r) => ({ ...r, output: outputs[r.index] ?? "" })) };
      },
      {
        params: M.EvalParams,
        body: M.RunBody,
        // The inference pipeline's own: 402 insufficient_credit, 404 model_not_found, 429 upstream_rate_limited, 502/503/504
        // from the upstream (400 upstream_rejected and 403 privacy/region refusals are in the baseline). Once the run has
        // started, each carries eval_run_id and spent_micro_usd.
        response: { 201: M.CreatedRun, ...errors(402, 429, 502, 503, 504) },
        detail: {
          ...doc(
            "Run an eval: every case through the metered chat pipeline on the account's credit, graded; pass rate and regression flag",
            "Each model call is billed and receipted on its own. A call that fails fails the run: the error answers, with eval_run_id and spent_micro_usd, and what was spent stays billed. The outputs are in this answer only; the stored run holds their sha256.",
          ).detail,
          // The body may be left out (the eval's own model); the document builder would mark it required.
          requestBody: { required: false, content: { "application/json": { schema: M.RunFields } } },
        },
      },
    )
    .get("/:id/runs", ({ principal, params, query }) => namedList("runs", listRuns(ctx, principal.accountId, params.id, query.limit)), {
      params: M.EvalParams,
      query: M.RunsQuery,
      response: { 200: M.RunList },
      ...doc("An eval's runs, newest first ({runs: [...]}); the newest 200 are kept"),
    });
}

/** The monitors group first: its literal segment is matched before an eval id is. */
export const evalsRoutes = (ctx: Context) => [monitorRoutes(ctx), evalRoutes(ctx)];
