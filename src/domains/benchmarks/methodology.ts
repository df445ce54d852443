/**
 * The benchmark methodology, version portfolio-return/1 (docs/benchmarks.md "Methodology"):
 * pure integer arithmetic, BigInt where a product can pass 2^53, floor division throughout.
 * A result names the version it was computed under; a change to anything here is a new version,
 * never an edit of this one, because historical results are never recomputed under a newer one.
 */
import { invalidField } from "../../core/errors.ts";
import { MAX_MICRO_USD } from "../../core/money.ts";

export const METHODOLOGY_VERSION = "portfolio-return/1";

/** In this order: it breaks ties for the largest class, and orders weights in a result. */
export const ASSET_CLASSES = ["equity", "fixed_income", "cash", "real_estate", "commodities", "crypto", "private_markets", "other"] as const;
export type AssetClass = (typeof ASSET_CLASSES)[number];

const BPS = 10_000n;
/** A class at or above half the portfolio leads it; below that everywhere, the portfolio is diversified. */
const LEAD_BPS = 5_000;
const USD = 1_000_000n;

/** Total value bands, upper bounds exclusive; a weights-only portfolio discloses no size. */
export const SIZE_BANDS = [
  { band: "under_100k", below: 100_000n * USD },
  { band: "100k_1m", below: 1_000_000n * USD },
  { band: "1m_10m", below: 10_000_000n * USD },
  { band: "10m_100m", below: 100_000_000n * USD },
  { band: "over_100m", below: null },
] as const;
export const UNDISCLOSED_SIZE = "undisclosed";
export const MIX_BANDS = [...ASSET_CLASSES.map((c) => `${c}_led`), "diversified"];

export interface Holding {
  asset_class: AssetClass;
  value_micro_usd?: number;
  weight_bps?: number;
  return_bps?: number;
}

export interface PortfolioFigures {
  return_bps: number;
  /** "stated": the caller's period_return_bps; "holdings": weighted from each holding's return. */
  return_source: "stated" | "holdings";
  weights_bps: Partial<Record<AssetClass, number>>;
  mix_band: string;
  size_band: string;
  holdings_count: number;
}

/** Floor division (toward −∞) of a BigInt by a positive divisor; BigInt's own `/` truncates toward 0. */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/**
 * The shape rules the schema cannot say: one form for every holding (all values or all
 * weights, weights summing to exactly 10000), and the return stated once (period_return_bps,
 * or return_bps on every holding, never both). Throws 400 naming the field.
 */
export function checkHoldings(holdings: Holding[], statedReturnBps: number | null): void {
  const byValue = holdings[0]!.value_micro_usd !== undefined;
  let total = 0n;
  holdings.forEach((h, i) => {
    const hasValue = h.value_micro_usd !== undefined;
    const hasWeight = h.weight_bps !== undefined;
    if (hasValue === hasWeight) throw invalidField(`holdings.${i}`, "give exactly one of value_micro_usd and weight_bps");
    if (hasValue !== byValue) throw invalidField(`holdings.${i}.${byValue ? "value_micro_usd" : "weight_bps"}`, `every holding must use the same form as the first (${byValue ? "value_micro_usd" : "weight_bps"})`);
    total += BigInt(h.value_micro_usd ?? h.weight_bps!);
    if (statedReturnBps !== null && h.return_bps !== undefined) throw invalidField("period_return_bps", "give period_return_bps or return_bps on every holding, not both");
    if (statedReturnBps === null && h.return_bps === undefined) throw invalidField(`holdings.${i}.return_bps`, "is required when period_return_bps is absent");
  });
  if (byValue && total > BigInt(MAX_MICRO_USD)) throw invalidField("holdings", `values sum to more than ${MAX_MICRO_USD} micro-USD`);
  if (!byValue && total !== BPS) throw invalidField("holdings", `weight_bps must sum to exactly 10000 (they sum to ${total})`);
}

/** The portfolio's own figures (holdings already checked): weights, bands and the period return. */
export function portfolioFigures(holdings: Holding[], statedReturnBps: number | null): PortfolioFigures {
  const byValue = holdings[0]!.value_micro_usd !== undefined;
  const amount = (h: Holding) => BigInt(h.value_micro_usd ?? h.weight_bps!);
  const total = holdings.reduce((sum, h) => sum + amount(h), 0n);
  const perClass = new Map<AssetClass, bigint>();
  for (const h of holdings) perClass.set(h.asset_class, (perClass.get(h.asset_class) ?? 0n) + amount(h));
  const weights: Partial<Record<AssetClass, number>> = {};
  let lead: { cls: AssetClass; bps: number } | null = null;
  for (const cls of ASSET_CLASSES) {
    const part = perClass.get(cls);
    if (part === undefined) continue;
    const bps = Number(floorDiv(part * BPS, total));
    weights[cls] = bps;
    if (!lead || bps > lead.bps) lead = { cls, bps };
  }
  const returnBps = statedReturnBps ?? Number(floorDiv(holdings.reduce((sum, h) => sum + amount(h) * BigInt(h.return_bps!), 0n), total));
  return {
    return_bps: returnBps,
    return_source: statedReturnBps === null ? "holdings" : "stated",
    weights_bps: weights,
    mix_band: lead && lead.bps >= LEAD_BPS ? `${lead.cls}_led` : "diversified",
    size_band: byValue ? SIZE_BANDS.find((b) => b.below === null || total < b.below)!.band : UNDISCLOSED_SIZE,
    holdings_count: holdings.length,
  };
}

export interface PeerFigures {
  released: boolean;
  reason: string | null;
  cohort_size: number | null;
  min_cohort_size: number;
  p25_return_bps: number | null;
  median_return_bps: number | null;
  p75_return_bps: number | null;
  excess_return_bps: number | null;
  percentile_rank: number | null;
}

/** Nearest rank: the value at 1-based rank ceil(p·n/100) of the sorted values, always an observed figure. */
const nearestRank = (sorted: number[], p: number): number => sorted[Math.floor((p * sorted.length + 99) / 100) - 1]!;

/**
 * The peer figures of `mine` against other accounts' returns, or none at all (with the reason)
 * below the minimum cohort size: not even the count, which with a known rank narrows peers down.
 */
export function peerFigures(mine: number, peers: number[], minCohortSize: number): PeerFigures {
  if (peers.length < minCohortSize) {
    return {
      released: false,
      reason: `the cohort has fewer than ${minCohortSize} other accounts; peer figures are released from ${minCohortSize}`,
      cohort_size: null,
      min_cohort_size: minCohortSize,
      p25_return_bps: null,
      median_return_bps: null,
      p75_return_bps: null,
      excess_return_bps: null,
      percentile_rank: null,
    };
  }
  const sorted = [...peers].sort((a, b) => a - b);
  const median = nearestRank(sorted, 50);
  const below = sorted.filter((r) => r < mine).length;
  return {
    released: true,
    reason: null,
    cohort_size: sorted.length,
    min_cohort_size: minCohortSize,
    p25_return_bps: nearestRank(sorted, 25),
    median_return_bps: median,
    p75_return_bps: nearestRank(sorted, 75),
    excess_return_bps: mine - median,
    percentile_rank: Math.floor((100 * below) / sorted.length),
  };
}

const PERIOD = /^(\d{4})(?:-Q([1-4])|-(0[1-9]|1[0-2]))?$/;

/** When a period (YYYY, YYYY-Qn or YYYY-MM) starts, in ms UTC. */
export function periodStart(period: string): number {
  const m = PERIOD.exec(period);
  if (!m) throw invalidField("period", "must be YYYY, YYYY-Q1..Q4 or YYYY-MM");
  const month = m[2] ? (Number(m[2]) - 1) * 3 : m[3] ? Number(m[3]) - 1 : 0;
  return Date.UTC(Number(m[1]), month, 1);
}

/** The cohort a portfolio is compared within: same period, same mix band, same size band (and, implicitly, the same methodology). */
export const cohortOf = (period: string, f: Pick<PortfolioFigures, "mix_band" | "size_band">): string => `${period}/${f.mix_band}/${f.size_band}`;
