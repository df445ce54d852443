/**
 * Evals' names and limits in one place: the schemas (models.ts) state them to the OpenAPI
 * document, the services enforce what a schema cannot. docs/evals.md explains each.
 */
import type { LimitRule } from "../../core/envelopes.ts";

/** Spec §8: 200 evals per account (GET /v1/evals lists them all). */
export const MAX_EVALS_PER_ACCOUNT = 200;
/** Spec §8: 50 eval monitors per account. */
export const MAX_MONITORS_PER_ACCOUNT = 50;

export const NAME_MAX = 100;
export const MAX_CASES = 100;
export const INPUT_MAX = 20_000;
export const SYSTEM_MAX = 20_000;
export const EXPECTED_MAX = 20_000;
export const RUBRIC_MAX = 4_000;
/** A regex assert's pattern: long patterns are where catastrophic backtracking hides. */
export const PATTERN_MAX = 1_000;
/** A json_schema assert's schema, as JSON text, and how deeply it may nest. */
export const SCHEMA_MAX_BYTES = 16 * 1024;
export const SCHEMA_MAX_DEPTH = 32;

export const ASSERT_KINDS = ["exact", "contains", "regex", "json_schema", "judge"] as const;
export type AssertKind = (typeof ASSERT_KINDS)[number];

/** Spec §8: the drift monitor's floor is hourly; at most 30 days. */
export const MIN_INTERVAL_S = 3_600;
export const MAX_INTERVAL_S = 30 * 86_400;

/** Cases of one run in flight at once: a run finishes in reasonable time without flooding a provider. */
export const RUN_CONCURRENCY = 4;
/** The newest runs of an eval that are kept (GET …/runs lists at most this many). */
export const RUNS_KEPT_PER_EVAL = 200;
export const RUNS_LIMIT: LimitRule = { min: 1, max: RUNS_KEPT_PER_EVAL, default: 50 };

/** An error's message as stored on a failed run or a monitor. */
export const ERROR_MESSAGE_MAX = 500;

/**
 * Pass rates are ratios of small integers; a difference of two of them compared with a decimal
 * threshold (0.9 − 0.8 against 0.1) must not miss by a rounding error.
 */
export const RATE_EPSILON = 1e-9;
