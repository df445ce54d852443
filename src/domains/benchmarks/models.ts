/**
 * TypeBox models of the /v1/benchmarks routes: a closed request body (an unknown field is
 * refused and named) and the exact shapes served (service.ts view and resultView).
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { COHORTS_CAP, MAX_HOLDINGS, MAX_LABEL_CHARS, MAX_RETENTION_DAYS } from "./limits.ts";
import { ASSET_CLASSES, METHODOLOGY_VERSION, MIX_BANDS, SIZE_BANDS, UNDISCLOSED_SIZE } from "./methodology.ts";
import { RETENTION_PATTERN } from "./retention.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

const PERIOD_PATTERN = "^\\d{4}(-Q[1-4]|-(0[1-9]|1[0-2]))?$";
const PERIOD_ERROR = "must be YYYY, YYYY-Q1..Q4 or YYYY-MM";
const Period = (description: string) => t.String({ pattern: PERIOD_PATTERN, maxLength: 7, error: PERIOD_ERROR, description });

const AssetClass = t.Union(
  ASSET_CLASSES.map((c) => t.Literal(c)),
  { error: `must be one of ${ASSET_CLASSES.join(", ")}` },
);
/** A period return in basis points: from a total loss (−10000) to ×101 (+1 000 000). */
const ReturnBps = (description: string) => Int({ minimum: -10_000, maximum: 1_000_000, description });

const HoldingInput = t.Object(
  {
    asset_class: AssetClass,
    value_micro_usd: t.Optional(MicroUsd({ minimum: 1, description: "the holding's value; give this on every holding, or weight_bps on every holding" })),
    weight_bps: t.Optional(Int({ minimum: 1, maximum: 10_000, description: "the holding's share of the portfolio; the weights must sum to exactly 10000" })),
    return_bps: t.Optional(ReturnBps("the holding's return over the period; on every holding when period_return_bps is absent")),
  },
  closed,
);

export const PortfolioBody = t.Object(
  {
    period: Period("the period the return is for: a year (2026), a quarter (2026-Q3) or a month (2026-09); it must have started"),
    holdings: t.Array(HoldingInput, { minItems: 1, maxItems: MAX_HOLDINGS, description: `1-${MAX_HOLDINGS} holdings; sealed, and destroyed by the retention chosen` }),
    period_return_bps: t.Optional(ReturnBps("the portfolio's return over the period as you measured it; otherwise it is weighted from each holding's return_bps")),
    retention: t.Optional(
      t.String({
        pattern: RETENTION_PATTERN,
        maxLength: 4,
        error: `must be "none" or a number of days from 1d to ${MAX_RETENTION_DAYS}d`,
        description: `how long the sealed holdings are kept for refreshes: "none" (default: never stored) or "1d"-"${MAX_RETENTION_DAYS}d"`,
      }),
    ),
    privacy_tier: t.Optional(
      t.Union([t.Literal("standard"), t.Literal("zero_retention"), t.Literal("confidential")], {
        description: "standard (default); zero_retention requires retention \"none\"; confidential answers 501 not_implemented",
      }),
    ),
    label: t.Optional(t.String({ minLength: 1, maxLength: MAX_LABEL_CHARS, description: "shown to the owner only" })),
  },
  closed,
);

export const BenchmarkParams = t.Object({ benchmarkId: t.String({ maxLength: 100 }) });
export const HistoryQuery = t.Object({ limit: t.Optional(t.String({ description: "1-200, default 50" })) });
export const CohortsQuery = t.Object({ period: t.Optional(Period("only this period's cohorts")) });

const Weights = t.Object(
  Object.fromEntries(ASSET_CLASSES.map((c) => [c, t.Optional(Int({ minimum: 0, maximum: 10_000 }))])),
  { ...closed, description: "each asset class present, floor(class value × 10000 ÷ total) basis points" },
);

const Portfolio = t.Object(
  {
    return_bps: Int({ description: "the portfolio's period return, in basis points" }),
    return_source: t.Union([t.Literal("stated"), t.Literal("holdings")], { description: "stated: period_return_bps as given; holdings: floor(Σ amount × return_bps ÷ Σ amount)" }),
    weights_bps: Weights,
    holdings_count: Int({ minimum: 1 }),
  },
  closed,
);

const NullableBps = Nullable(Int());
const Peers = t.Object(
  {
    released: t.Boolean({ description: "false below the minimum cohort size: every figure is then null" }),
    reason: Nullable(t.String()),
    cohort_size: Nullable(Int({ minimum: 0, description: "other accounts in the cohort (each counted once, by its latest benchmark)" })),
    min_cohort_size: Int({ minimum: 1 }),
    p25_return_bps: NullableBps,
    median_return_bps: NullableBps,
    p75_return_bps: NullableBps,
    excess_return_bps: Nullable(Int({ description: "return_bps − median_return_bps" })),
    percentile_rank: Nullable(Int({ minimum: 0, maximum: 99, description: "floor(100 × peers strictly below ÷ cohort_size)" })),
  },
  closed,
);

export const Result = t.Object(
  {
    seq: Int({ minimum: 1 }),
    methodology_version: t.String(),
    computed_at: Time,
    receipt_id: Nullable(t.String({ description: "the metered creation's receipt (version 1); null on refreshes" })),
    portfolio: Portfolio,
    peers: Peers,
    statement: t.String({ pattern: "^[A-Za-z0-9_-]+$", description: "base64url of the result's canonical JSON (type portfolio-benchmark)" }),
    signature: t.String({ pattern: "^0x[0-9a-fA-F]{130}$", description: "EIP-191 personal_sign of the statement string" }),
    signer: t.String({ pattern: "^0x[0-9a-fA-F]{40}$" }),
  },
  closed,
);

// Strings with their values listed: a union built from the lists would type as never.
const SizeBand = t.String({ description: `one of ${[...SIZE_BANDS.map((b) => b.band), UNDISCLOSED_SIZE].join(", ")} (total value in USD; undisclosed for weights-only portfolios)` });
const MixBand = t.String({ description: `one of ${MIX_BANDS.join(", ")}: the class holding at least half the portfolio, or diversified` });

export const Benchmark = t.Object(
  {
    id: t.String(),
    label: Nullable(t.String()),
    period: t.String(),
    cohort: t.String({ description: "period/mix_band/size_band" }),
    mix_band: MixBand,
    size_band: SizeBand,
    methodology_version: t.String({ description: `the methodology its results are computed under (now ${METHODOLOGY_VERSION})` }),
    privacy_tier: t.Union([t.Literal("standard"), t.Literal("zero_retention")]),
    retention: t.String(),
    holdings: t.Object(
      {
        state: t.Union([t.Literal("sealed"), t.Literal("destroyed")]),
        count: Int({ minimum: 1 }),
        expires_at: Nullable(Time),
        destroyed_at: Nullable(Time),
      },
      closed,
    ),
    created_at: Time,
    result: Result,
  },
  closed,
);

export const History = t.Object(
  { versions: t.Array(Result, { description: "newest first" }), benchmark_id: t.String() },
  closed,
);

export const Cohorts = t.Object(
  {
    cohorts: t.Array(
      t.Object(
        {
          cohort: t.String(),
          period: t.String(),
          mix_band: MixBand,
          size_band: SizeBand,
          accounts: Nullable(Int({ minimum: 1, description: "distinct accounts with a benchmark in the band; null below min_cohort_size" })),
          accounts_label: t.String({ description: 'the count, or "<N" below the minimum' }),
        },
        closed,
      ),
      { maxItems: COHORTS_CAP, description: `most recent periods first, at most ${COHORTS_CAP}` },
    ),
    min_cohort_size: Int({ minimum: 1 }),
    methodology_version: t.String(),
  },
  closed,
);
