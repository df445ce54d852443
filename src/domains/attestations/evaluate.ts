/**
 * One check of a definition: every source retrieved once (in parallel), then judged by rules.ts.
 * A source that did not answer makes the check UNAVAILABLE with no figures at all — a partial
 * sum of reserves is a guess too. Reasons name sources and outcomes, never figures.
 */
import type { Context } from "../../context.ts";
import { type EvidenceRef, retrieve, scaledUnits } from "../evidence/index.ts";
import type { Definition } from "./definition.ts";
import { reportsFigure } from "./definition.ts";
import { UNIT_SCALE } from "./limits.ts";
import { type CheckStatus, judge } from "./rules.ts";
import type { StoredReconciliation, UnavailableSource } from "./store.ts";

export interface Outcome {
  status: CheckStatus;
  reconciliation: StoredReconciliation | null;
  references: EvidenceRef[];
  unavailable: UnavailableSource[];
  reasons: string[];
}

const MAX_DIGITS = 40;

/** Decimal text floored to millionths, or null when its integer part is longer than svc compares. */
function millionths(decimal: string): bigint | null {
  const int = decimal.split(".")[0]!;
  return int.length > MAX_DIGITS ? null : scaledUnits(decimal, UNIT_SCALE);
}

const SHORTFALL = {
  reserves_cover_supply: "the reserves fall short of the on-chain supply by more than tolerance_bps",
  reported_supply_matches: "the reported supply differs from the on-chain supply by more than tolerance_bps",
} as const;

export async function evaluate(ctx: Context, accountId: string, def: Definition): Promise<Outcome> {
  const retrievals = await Promise.all(def.sources.map((s) => retrieve(ctx, accountId, s)));
  const references: EvidenceRef[] = [];
  const unavailable: UnavailableSource[] = [];
  const figures: (bigint | null)[] = [];
  for (const r of retrievals) {
    if (!r.ok) {
      unavailable.push({ source_kind: r.source_kind, source_ref: r.source_ref, label: r.label, reason: r.reason });
      figures.push(null);
      continue;
    }
    references.push(r.reference);
    const units = r.figure === null ? null : millionths(r.figure);
    // An on-chain supply can run to 78 digits; a figure too long to compare is not compared by guesswork.
    if (r.figure !== null && units === null) {
      unavailable.push({ source_kind: r.reference.source_kind, source_ref: r.reference.source_ref, label: r.reference.label, reason: `the figure has more than ${MAX_DIGITS} digits before the decimal point` });
    }
    figures.push(units);
  }
  if (unavailable.length) {
    return { status: "UNAVAILABLE", reconciliation: null, references, unavailable, reasons: unavailable.map((u) => `${u.source_kind} ${u.source_ref}: ${u.reason}`) };
  }
  let supply = 0n;
  let reported = 0n;
  def.sources.forEach((s, i) => {
    const units = figures[i];
    if (units === null || units === undefined) return;
    if (s.kind === "erc20_supply") supply = units;
    else if (reportsFigure(s)) reported += units;
  });
  const declared = def.claim.declared_figure;
  if (declared !== null) reported = scaledUnits(declared, UNIT_SCALE);
  const { within, deltaBps } = judge(def.claim.kind, reported, supply, def.claim.tolerance_bps);
  return {
    status: within ? "VERIFIED" : "DISCREPANCY",
    reconciliation: {
      reported_from: declared !== null ? "issuer_declaration" : "sources",
      reported_micro_units: reported.toString(),
      onchain_supply_micro_units: supply.toString(),
      delta_bps: deltaBps,
      tolerance_bps: def.claim.tolerance_bps,
      within_tolerance: within,
      unit_scale: UNIT_SCALE,
      rounding: "floor",
    },
    references,
    unavailable,
    reasons: within ? [] : [SHORTFALL[def.claim.kind]],
  };
}
