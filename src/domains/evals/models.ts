/**
 * TypeBox models of the /v1/evals routes: closed request bodies (an unknown field is refused and
 * named, never stripped) and the exact shapes served (evals.ts, run-views.ts, monitors.ts), so
 * the OpenAPI document describes what is served. Rules a schema cannot state (which fields an
 * assert kind needs, a regex or JSON Schema that compiles) are cases.ts's.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable, Sha256Hex } from "../../core/schemas.ts";
import {
  ASSERT_KINDS,
  EXPECTED_MAX,
  INPUT_MAX,
  MAX_CASES,
  MAX_EVALS_PER_ACCOUNT,
  MAX_INTERVAL_S,
  MAX_MONITORS_PER_ACCOUNT,
  MIN_INTERVAL_S,
  NAME_MAX,
  RUBRIC_MAX,
  RUNS_LIMIT,
  SYSTEM_MAX,
} from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const Rate = (description: string) => t.Number({ minimum: 0, maximum: 1, description });
const ModelId = (description: string) => t.String({ minLength: 1, maxLength: 200, description });
const Text = (max: number, description: string) => t.String({ minLength: 1, maxLength: max, error: `must be 1 to ${max.toLocaleString("en")} characters`, description });

export const AssertKind = t.Union(
  ASSERT_KINDS.map((k) => t.Literal(k)),
  { error: `must be one of ${ASSERT_KINDS.join(", ")}`, description: "how the output is checked (docs/evals.md)" },
);

export const CaseBody = t.Object(
  {
    input: Text(INPUT_MAX, "the user message sent to the model"),
    system: t.Optional(Text(SYSTEM_MAX, "a system message sent before it")),
    expected: t.Optional(Text(EXPECTED_MAX, "exact/contains: the expected text; regex: the pattern (JavaScript syntax); judge: an optional reference answer shown to the judge")),
    assert: AssertKind,
    flags: t.Optional(t.String({ pattern: "^[imsu]{0,4}$", error: "must be RegExp flags from i, m, s, u", description: "regex only: flags from i, m, s, u" })),
    schema: t.Optional(t.Record(t.String(), t.Unknown(), { description: "json_schema only: a JSON Schema (draft 2020-12) the output's JSON must satisfy; at most 16 KiB" })),
    judge_model: t.Optional(ModelId("judge only: the chat model that judges (default: the eval's model)")),
    rubric: t.Optional(Text(RUBRIC_MAX, "judge only: what a passing answer is")),
  },
  closed,
);

export const CreateEvalBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: NAME_MAX, pattern: "\\S", error: `must be 1 to ${NAME_MAX} characters, not all whitespace` }),
    model: ModelId("the chat model the eval runs against (POST …/run may name another)"),
    cases: t.Array(CaseBody, { minItems: 1, maxItems: MAX_CASES, error: `must hold 1 to ${MAX_CASES} cases`, description: `1 to ${MAX_CASES} cases, sealed at rest` }),
    threshold: t.Optional(Rate("the pass rate at or above which a run passes (default 1)")),
  },
  closed,
);

export const EvalParams = t.Object({ id: t.String({ maxLength: 100 }) });

const Count = () => t.Optional(Int({ minimum: 1 }));
const Asserts = t.Object(
  { exact: Count(), contains: Count(), regex: Count(), json_schema: Count(), judge: Count() },
  { ...closed, description: "how many cases of each assert kind (kinds with none are absent)" },
);

const RunStatus = t.Union([t.Literal("completed"), t.Literal("failed")]);

const summaryFields = {
  id: t.String({ description: "erun_…" }),
  model: t.String(),
  status: RunStatus,
  passed: Nullable(Int({ minimum: 0, description: "null when the run failed" })),
  total: Int({ minimum: 1 }),
  pass_rate: Nullable(Rate("passed / total; null when the run failed")),
  passed_threshold: t.Boolean(),
  regression: t.Boolean({ description: "the pass rate is lower than the previous completed run's of the same eval and model" }),
  created_at: Time,
};

export const RunSummary = t.Object(summaryFields, closed);

export const Eval = t.Object(
  {
    id: t.String({ description: "eval_…" }),
    name: t.String(),
    model: t.String(),
    threshold: Rate("the pass rate at or above which a run passes"),
    case_count: Int({ minimum: 1, maximum: MAX_CASES }),
    asserts: Asserts,
    latest_run: Nullable(RunSummary),
    created_at: Time,
  },
  closed,
);

export const EvalList = t.Object({ evals: t.Array(Eval, { maxItems: MAX_EVALS_PER_ACCOUNT, description: "oldest first, all of them" }) }, closed);

export const EvalDeleted = t.Object({ id: t.String(), deleted: t.Literal(true) }, closed);

const resultFields = {
  index: Int({ minimum: 0, description: "the case's position in the eval" }),
  passed: t.Boolean(),
  reason: t.String({ description: "why, in a fixed phrase that never quotes the output" }),
  output_sha256: Sha256Hex(),
  latency_ms: Int({ minimum: 0, description: "wall time of the case's model call" }),
  cost_micro_usd: MicroUsd({ description: "the case's calls (a judge case: its call and the judge's)" }),
  receipt_id: Nullable(t.String()),
  judge_receipt_id: Nullable(t.String({ description: "judge cases: the judge call's receipt" })),
};

export const CaseResult = t.Object(resultFields, closed);

const RunErrorBody = t.Object({ type: t.String(), message: t.String() }, closed);

const runFields = {
  ...summaryFields,
  eval_id: t.String(),
  source: t.Union([t.Literal("manual"), t.Literal("monitor")]),
  monitor_id: Nullable(t.String()),
  error: Nullable(RunErrorBody),
  threshold: Rate("the eval's threshold"),
  previous_run_id: Nullable(t.String({ description: "the completed run of the same eval and model this one is compared with" })),
  previous_pass_rate: Nullable(Rate("that run's pass rate")),
  cost_micro_usd: MicroUsd({ description: "every call of the run, failed runs included" }),
  receipt_ids: t.Array(t.String()),
  completed_at: Time,
};

export const Run = t.Object({ ...runFields, results: t.Array(CaseResult, { description: "by case index; a failed run holds the cases that finished" }) }, closed);

export const CreatedRun = t.Object(
  {
    ...runFields,
    results: t.Array(t.Object({ ...resultFields, output: t.String({ description: "the model's output: returned this once, never stored" }) }, closed)),
  },
  closed,
);

export const RunFields = t.Object({ model: t.Optional(ModelId("run against this chat model instead of the eval's own")) }, closed);
/** Optional: a bare POST runs the eval's own model. */
export const RunBody = t.Optional(RunFields);

export const RunsQuery = t.Object({
  // limit stays a string: parseLimit reads it (400 naming `query.limit`; above the maximum clamps).
  limit: t.Optional(t.String({ description: `${RUNS_LIMIT.min}–${RUNS_LIMIT.max}, default ${RUNS_LIMIT.default}; larger values are clamped` })),
});

export const RunList = t.Object({ runs: t.Array(Run, { maxItems: RUNS_LIMIT.max, description: "newest first" }) }, closed);

const Interval = Int({
  minimum: MIN_INTERVAL_S,
  maximum: MAX_INTERVAL_S,
  error: `must be a whole number of seconds from ${MIN_INTERVAL_S} (hourly) to ${MAX_INTERVAL_S} (30 days)`,
  description: "seconds between runs: hourly at the most often, 30 days at the least",
});
const DropThreshold = t.Number({
  exclusiveMinimum: 0,
  maximum: 1,
  error: "must be above 0 and at most 1",
  description: "the fall in pass rate from the previous run (e.g. 0.1) that counts as drift",
});

export const CreateMonitorBody = t.Object(
  {
    eval_id: t.String({ minLength: 1, maxLength: 100 }),
    interval_s: Interval,
    drop_threshold: DropThreshold,
    model: t.Optional(ModelId("the chat model to watch (default: the eval's)")),
  },
  closed,
);

export const MonitorPatchBody = t.Object({ interval_s: t.Optional(Interval), drop_threshold: t.Optional(DropThreshold), enabled: t.Optional(t.Boolean()) }, closed);

export const MonitorParams = t.Object({ id: t.String({ maxLength: 100 }) });

export const Monitor = t.Object(
  {
    id: t.String({ description: "emon_…" }),
    eval_id: t.String(),
    model: t.String(),
    interval_s: Int({ minimum: MIN_INTERVAL_S, maximum: MAX_INTERVAL_S }),
    drop_threshold: t.Number({ exclusiveMinimum: 0, maximum: 1 }),
    enabled: t.Boolean(),
    next_run_at: Time,
    last_run_at: Nullable(Time),
    last_run_id: Nullable(t.String()),
    last_error: Nullable(RunErrorBody),
    last_drift_at: Nullable(Time),
    created_at: Time,
    updated_at: Time,
  },
  closed,
);

export const MonitorList = t.Object({ monitors: t.Array(Monitor, { maxItems: MAX_MONITORS_PER_ACCOUNT, description: "oldest first, all of them" }) }, closed);

export const MonitorDeleted = t.Object({ id: t.String(), deleted: t.Literal(true) }, closed);
