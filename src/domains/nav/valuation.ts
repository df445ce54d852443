/**
 * Valuing a book (docs/nav.md "Method"): every source retrieved once, every figure computed in
 * BigInt from what the sources answered, reconciled, and judged:
 *
 *   UNAVAILABLE  a source named did not answer (or a figure is beyond what a record can state):
 *                no figures at all, never a guess;
 *   DISCREPANCY  price sources of a position, or reported and on-chain supply, differ by more than
 *                tolerance_bps (the figures are stated, with the reasons);
 *   STALE        the valuation is older than max_age_secs;
 *   VERIFIED     none of the above.
 *
 * In that order of precedence; reasons[] lists every finding. A restatement (refresh without
 * revalue) carries the version's figures and price check, and observes only supply and time again.
 */
import { MAX_MICRO_USD } from "../../core/money.ts";
import type { Context } from "../../context.ts";
import { type Retrieval, retrieve, scaledUnits, type StoredSource } from "../evidence/index.ts";
import { deltaBps, exact, grossMicroUsd, navPerUnit, overTolerance, spread } from "./arithmetic.ts";
import type { Plan } from "./book.ts";
import type { NavStatus, PRICE_CHECKS, SUPPLY_CHECKS } from "./models.ts";

/** One evidence reference as the record keeps it (the payload drops the label). */
export interface CitedRef {
  source_kind: string;
  source_ref: string;
  label: string | null;
  retrieved_at: string;
  content_sha256: string;
}

export interface Figures {
  gross: number;
  liabilities: number;
  total: number;
  perUnit: number;
  supply: number;
}

export interface Reconciliation {
  supply: (typeof SUPPLY_CHECKS)[number];
  reported_supply_micro_units: number | null;
  onchain_supply_micro_units: number | null;
  supply_delta_bps: number | null;
  price_sources: (typeof PRICE_CHECKS)[number];
  price_sources_compared: number;
  tolerance_bps: number;
}

export interface Valuation {
  figures: Figures | null;
  reconciliation: Reconciliation;
  references: CitedRef[];
  reasons: string[];
  unavailable: boolean;
  discrepancy: boolean;
}

/** Where a price-check reason comes from: a restatement carries exactly these (valuation's own wording). */
const PRICE_REASON_PREFIX = "holdings[";
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_MONEY = BigInt(MAX_MICRO_USD);

const cite = (r: Extract<Retrieval, { ok: true }>): CitedRef => ({
  source_kind: r.reference.source_kind,
  source_ref: r.reference.source_ref,
  label: r.reference.label,
  retrieved_at: r.reference.retrieved_at,
  content_sha256: r.reference.content_sha256,
});

const unavailableReason = (field: string, r: Extract<Retrieval, { ok: false }>) => `${field} (${r.source_kind} ${r.source_ref}) is unavailable: ${r.reason}`;

export const statusOf = (v: { unavailable: boolean; discrepancy: boolean }, fresh: boolean): NavStatus =>
  v.unavailable ? "UNAVAILABLE" : v.discrepancy ? "DISCREPANCY" : fresh ? "VERIFIED" : "STALE";

interface SupplyCheck {
  status: Reconciliation["supply"];
  onchain: bigint | null;
  delta: bigint | null;
  reasons: string[];
  unavailable: boolean;
}

function checkSupply(reported: bigint, onchain: Retrieval | null, toleranceBps: number): SupplyCheck {
  if (onchain === null) return { status: "NOT_CHECKED", onchain: null, delta: null, reasons: [], unavailable: false };
  if (!onchain.ok) return { status: "UNAVAILABLE", onchain: null, delta: null, reasons: [unavailableReason("supply.onchain", onchain)], unavailable: true };
  const units = scaledUnits(onchain.figure!, 6);
  if (units > SAFE) return { status: "UNAVAILABLE", onchain: null, delta: null, reasons: ["supply.onchain: the on-chain supply exceeds 2^53-1 micro-units, more than a record can state exactly"], unavailable: true };
  if (units === 0n) return { status: "MISMATCH", onchain: units, delta: null, reasons: ["supply: the on-chain supply is 0 while the reported supply is not"], unavailable: false };
  const delta = deltaBps(reported, units)!;
  const over = overTolerance(delta, toleranceBps);
  return {
    status: over ? "MISMATCH" : "MATCHED",
    onchain: units,
    delta,
    reasons: over ? [`supply: the reported supply differs from the on-chain supply by ${delta} bps, over the tolerance of ${toleranceBps} bps`] : [],
    unavailable: false,
  };
}

const retrieveOrNull = (ctx: Context, accountId: string, s: StoredSource | null) => (s ? retrieve(ctx, accountId, s) : Promise.resolve(null));

/** Retrieves every source of the plan and values the book. */
export async function valueBook(ctx: Context, accountId: string, plan: Plan): Promise<Valuation> {
  const [prices, onchain, supporting] = await Promise.all([
    Promise.all(plan.holdings.map((h) => Promise.all(h.price_sources.map((s) => retrieve(ctx, accountId, s))))),
    retrieveOrNull(ctx, accountId, plan.onchain),
    Promise.all(plan.supporting.map((s) => retrieve(ctx, accountId, s))),
  ]);
  const references: CitedRef[] = [];
  const reasons: string[] = [];
  let unavailable = false;
  const seen = (field: string, r: Retrieval) => {
    if (r.ok) references.push(cite(r));
    else {
      unavailable = true;
      reasons.push(unavailableReason(field, r));
    }
  };
  prices.forEach((quotes, i) => quotes.forEach((r, j) => seen(`holdings[${i}].price_sources[${j}]`, r)));
  if (onchain?.ok) references.push(cite(onchain));
  supporting.forEach((r, i) => seen(`supporting_sources[${i}]`, r));

  const reported = BigInt(plan.reported_supply_micro_units);
  const supply = checkSupply(reported, onchain, plan.tolerance_bps);
  reasons.push(...supply.reasons);
  unavailable ||= supply.unavailable;

  const compared = prices.reduce((n, quotes) => n + quotes.length, 0);
  const pricesAnswered = prices.every((quotes) => quotes.every((r) => r.ok));
  let priceStatus: Reconciliation["price_sources"] = "UNAVAILABLE";
  const positions: { quantity: ReturnType<typeof exact>; price: ReturnType<typeof exact> }[] = [];
  if (pricesAnswered) {
    let mismatch = false;
    prices.forEach((quotes, i) => {
      const { lowest, bps } = spread(quotes.map((r) => exact((r as Extract<Retrieval, { ok: true }>).figure!)));
      positions.push({ quantity: exact(plan.holdings[i]!.quantity), price: lowest });
      if (quotes.length > 1 && overTolerance(bps, plan.tolerance_bps)) {
        mismatch = true;
        reasons.push(
          bps === null
            ? `${PRICE_REASON_PREFIX}${i}]: one price source quotes 0 and another does not`
            : `${PRICE_REASON_PREFIX}${i}]: price sources differ by ${bps} bps, over the tolerance of ${plan.tolerance_bps} bps`,
        );
      }
    });
    priceStatus = mismatch ? "MISMATCH" : plan.holdings.some((h) => h.price_sources.length > 1) ? "MATCHED" : "SINGLE_SOURCE";
  }

  const reconciliation = (withFigures: boolean): Reconciliation => ({
    supply: supply.status,
    reported_supply_micro_units: withFigures ? plan.reported_supply_micro_units : null,
    onchain_supply_micro_units: withFigures && supply.onchain !== null ? Number(supply.onchain) : null,
    supply_delta_bps: withFigures && supply.delta !== null ? Number(supply.delta) : null,
    price_sources: priceStatus,
    price_sources_compared: compared,
    tolerance_bps: plan.tolerance_bps,
  });
  const discrepancy = priceStatus === "MISMATCH" || supply.status === "MISMATCH";
  if (unavailable) return { figures: null, reconciliation: reconciliation(false), references, reasons, unavailable, discrepancy };

  const gross = grossMicroUsd(positions);
  const liabilities = BigInt(plan.liabilities_micro_usd);
  const total = gross - liabilities;
  // Divided by the larger supply: a per-unit NAV is never overstated by the choice of supply.
  const supplyUsed = supply.onchain !== null && supply.onchain > reported ? supply.onchain : reported;
  const perUnit = navPerUnit(total, BigInt(plan.unit_scale), supplyUsed);
  const tooLarge = [gross, total, perUnit].some((x) => x > MAX_MONEY || x < -MAX_MONEY);
  if (tooLarge) {
    reasons.push(`a figure exceeds ${MAX_MONEY} micro-USD, the most a micro_usd field can carry; no figures are stated`);
    return { figures: null, reconciliation: reconciliation(false), references, reasons, unavailable: true, discrepancy };
  }
  return {
    figures: { gross: Number(gross), liabilities: plan.liabilities_micro_usd, total: Number(total), perUnit: Number(perUnit), supply: Number(supplyUsed) },
    reconciliation: reconciliation(true),
    references,
    reasons,
    unavailable: false,
    discrepancy,
  };
}

/** What a restatement starts from: the figures, reconciliation, references and reasons of the version restated. */
export interface Restated {
  figures: Figures;
  reconciliation: Reconciliation;
  references: CitedRef[];
  reasons: string[];
}

/**
 * Restates a version: its figures and its price check are carried (they stand as of its
 * valuation; nothing is recomputed), supply is observed again when the book names an on-chain
 * source, and the caller judges freshness at the new calculation time.
 */
export async function restate(ctx: Context, accountId: string, plan: Plan, prev: Restated): Promise<Valuation> {
  const onchain = await retrieveOrNull(ctx, accountId, plan.onchain);
  const supply = checkSupply(BigInt(plan.reported_supply_micro_units), onchain, plan.tolerance_bps);
  const references = prev.references.filter((r) => r.source_kind !== "erc20_supply");
  if (onchain?.ok) references.push(cite(onchain));
  const reasons = [...prev.reasons.filter((r) => r.startsWith(PRICE_REASON_PREFIX)), ...supply.reasons];
  const withFigures = !supply.unavailable;
  const reconciliation: Reconciliation = {
    ...prev.reconciliation,
    supply: supply.status,
    reported_supply_micro_units: withFigures ? plan.reported_supply_micro_units : null,
    onchain_supply_micro_units: withFigures && supply.onchain !== null ? Number(supply.onchain) : null,
    supply_delta_bps: withFigures && supply.delta !== null ? Number(supply.delta) : null,
  };
  return {
    figures: withFigures ? prev.figures : null,
    reconciliation,
    references,
    reasons,
    unavailable: supply.unavailable,
    discrepancy: prev.reconciliation.price_sources === "MISMATCH" || supply.status === "MISMATCH",
  };
}
