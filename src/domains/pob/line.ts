/**
 * The canonical line of a check: the one text its sha256 and signature are computed over, and
 * published as is, so anyone can re-hash it and recover the signer without knowing svc's JSON:
 *
 *   pob|v1|<slug>|<seq>|<checked_at>|<status>|<reserve>|<supply>|<reserve_sha256>|<supply_sha256>
 *
 * checked_at is ISO 8601 UTC with milliseconds; reserve and supply are canonical decimal text
 * (no exponent, no trailing zeros); the sha256 fields are the fingerprints of the evidence bytes
 * retrieved; "-" stands for a field with no value. No field can hold "|" (slugs are
 * [a-z0-9-], figures are digits and a dot), so the line needs no escaping.
 */
import { scaledUnits } from "../evidence/index.ts";

export const CHECK_STATUSES = ["BACKED", "UNDERBACKED", "REPORTED", "UNAVAILABLE"] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

export const LINE_VERSION = "v1";

export interface LineFields {
  slug: string;
  seq: number;
  checkedAt: string;
  status: CheckStatus;
  reserve: string | null;
  supply: string | null;
  reserveSha256: string | null;
  supplySha256: string | null;
}

const orDash = (v: string | null) => v ?? "-";

export function canonicalLine(f: LineFields): string {
  return ["pob", LINE_VERSION, f.slug, String(f.seq), f.checkedAt, f.status, orDash(f.reserve), orDash(f.supply), orDash(f.reserveSha256), orDash(f.supplySha256)].join("|");
}

/** Figures have at most 40 decimal places (evidence's decimalText), so at this scale the comparison is exact. */
const EXACT_SCALE = 40;

/** BACKED when the reserve covers the supply, UNDERBACKED when it does not, REPORTED when there is no supply to compare against. */
export function backingStatus(reserve: string, supply: string | null): CheckStatus {
  if (supply === null) return "REPORTED";
  return scaledUnits(reserve, EXACT_SCALE) >= scaledUnits(supply, EXACT_SCALE) ? "BACKED" : "UNDERBACKED";
}
