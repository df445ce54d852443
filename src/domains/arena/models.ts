/**
 * TypeBox models of the arena: the suite file `svc arena suites add` reads (closed: an unknown
 * field is refused and named, never dropped), the public routes' parameters and the exact shapes
 * served (suites.ts, leaderboard.ts, runs.ts build them), so the OpenAPI document describes what
 * is served. A case is an eval's case (the evals area's CaseBody): the same asserts, the same rules.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { CaseBody } from "../evals/index.ts";
import { Address, Hex64, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const ModelId = (description: string) => t.String({ minLength: 1, maxLength: 200, description });

export const Slug = t.String({ pattern: L.SLUG_PATTERN, error: "must be 1-63 lowercase letters, digits and hyphens, starting with a letter or digit", description: "the suite's slug" });
export const Version = t.String({
  pattern: L.VERSION_PATTERN,
  error: "must be 1-32 letters, digits, dots, underscores and hyphens, starting with a letter or digit",
  description: "the suite's methodology version: an operator's label, fixed with its cases",
});

/** The JSON file of `svc arena suites add --file`: one methodology version of one suite. */
export const SuiteFile = t.Object(
  {
    slug: Slug,
    name: t.String({ minLength: 1, maxLength: L.NAME_MAX, pattern: "\\S", error: `must be 1 to ${L.NAME_MAX} characters, not all whitespace` }),
    description: t.Optional(t.String({ minLength: 1, maxLength: L.DESCRIPTION_MAX, error: `must be 1 to ${L.DESCRIPTION_MAX} characters` })),
    methodology_version: Version,
    judge_model: t.Optional(ModelId("the judge of judge cases that name none (never the model under test)")),
    publish_cases: t.Optional(t.Boolean({ description: "serve the cases on GET /v1/arena/suites/:slug (default false: only their fingerprint)" })),
    cases: t.Array(CaseBody, { minItems: 1, maxItems: L.MAX_CASES, error: `must hold 1 to ${L.MAX_CASES} cases` }),
  },
  closed,
);

export const SuiteParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 100 }) });
export const RunParams = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

const VersionQuery = t.Optional(t.String({ maxLength: 100, description: "a methodology version of the suite (default: its current, newest version)" }));
export const SuiteQuery = t.Object({ version: VersionQuery });
export const BoardQuery = t.Object({
  suite: t.Optional(t.String({ maxLength: 100, description: "only this suite's board (default: every suite's, each on its current version)" })),
  version: t.Optional(t.String({ maxLength: 100, description: "with suite: the board of this methodology version (default: the current one)" })),
});

const Count = () => t.Optional(Int({ minimum: 1 }));
const Asserts = t.Object(
  { exact: Count(), contains: Count(), regex: Count(), json_schema: Count(), judge: Count() },
  { ...closed, description: "how many cases of each assert kind (kinds with none are absent)" },
);

const suiteFields = {
  slug: t.String(),
  name: t.String(),
  description: Nullable(t.String()),
  methodology_version: t.String({ description: "the version this record describes" }),
  current_version: t.String({ description: "the suite's newest methodology version: the one runs and the leaderboard use by default" }),
  versions: t.Array(t.String(), { description: "every methodology version of the suite, oldest first" }),
  case_count: Int({ minimum: 1 }),
  asserts: Asserts,
  cases_sha256: t.String({ pattern: "^[0-9a-f]{64}$", description: "sha256 of the canonical JSON array of the cases (docs/arena.md)" }),
  judge_model: Nullable(t.String({ description: "the judge of judge cases that name none" })),
  completed_runs: Int({ minimum: 0, description: "completed runs on this version" }),
  created_at: Time,
};

export const Suite = t.Object(suiteFields, closed);
export const SuiteList = t.Object({ suites: t.Array(Suite, { description: `each suite on its current version, by slug (at most ${L.MAX_SUITES_LISTED})` }) }, closed);
export const SuiteDetail = t.Object(
  {
    ...suiteFields,
    cases: Nullable(t.Array(CaseBody, { description: "the cases, when the operator published them; null otherwise (cases_sha256 still pins them)" })),
  },
  closed,
);

export const BoardEntry = t.Object(
  {
    rank: Int({ minimum: 1, description: "1 is best; models with the same pass rate share a rank" }),
    model: t.String(),
    run_id: t.String({ description: "the model's newest completed run on this version (GET /v1/arena/runs/:id)" }),
    passed: Int({ minimum: 0 }),
    total: Int({ minimum: 1 }),
    pass_rate: t.Number({ minimum: 0, maximum: 1, description: "passed / total" }),
    cost_micro_usd: MicroUsd({ description: "what the run's calls cost" }),
    completed_at: Time,
  },
  closed,
);

export const Board = t.Object(
  {
    suite: t.String(),
    name: t.String(),
    methodology_version: t.String(),
    cases_sha256: t.String({ pattern: "^[0-9a-f]{64}$" }),
    case_count: Int({ minimum: 1 }),
    entries: t.Array(BoardEntry, { description: `ranked, at most ${L.MAX_BOARD_ENTRIES}` }),
  },
  closed,
);

export const Leaderboard = t.Object(
  {
    leaderboards: t.Array(Board, { description: "one board per suite, by slug" }),
    ordered_by: t.String({ description: "how entries are ranked" }),
  },
  closed,
);

const CaseResult = t.Object(
  {
    index: Int({ minimum: 0 }),
    passed: t.Boolean(),
    reason: t.String({ description: "a fixed phrase (docs/evals.md); never the output" }),
    output_sha256: Hex64,
    latency_ms: Int({ minimum: 0 }),
    cost_micro_usd: MicroUsd(),
    receipt_id: Nullable(t.String()),
    judge_receipt_id: Nullable(t.String()),
  },
  closed,
);

const SignedReceipt = t.Object({ receipt_id: t.String(), receipt: Statement, signature: Signature, signer: Address }, closed);

export const Run = t.Object(
  {
    id: t.String({ description: "arun_…" }),
    suite: t.String(),
    methodology_version: t.String(),
    cases_sha256: t.String({ pattern: "^[0-9a-f]{64}$" }),
    model: t.String(),
    status: t.Union([t.Literal("completed"), t.Literal("failed")]),
    error: Nullable(t.Object({ type: t.String(), message: t.String() }, closed)),
    passed: Nullable(Int({ minimum: 0, description: "null when the run failed" })),
    total: Int({ minimum: 1 }),
    pass_rate: Nullable(t.Number({ minimum: 0, maximum: 1, description: "passed / total; null when the run failed" })),
    cost_micro_usd: MicroUsd(),
    results: t.Array(CaseResult, { description: "per case, content-free; a failed run lists the cases that finished" }),
    receipts: t.Array(SignedReceipt, { description: "the signed receipt of each case call (and judge call), in minting order" }),
    statement: t.Object(
      { statement: Statement, signature: Signature, signer: Address },
      { ...closed, description: `the run's own record, signed: type ${L.RUN_STATEMENT_TYPE} (docs/arena.md)` },
    ),
    created_at: Time,
    completed_at: Time,
    verify: t.String({ description: "how to check the run without trusting svc" }),
  },
  closed,
);
