/**
 * The status rules of an attestation (methodology asset-attestation/1, docs/attestations.md
 * "Status rules"), in integer arithmetic only: figures arrive as decimal text, are floored to
 * millionths (bigint), and every comparison is a cross-multiplication, so no rounding of a ratio
 * can tip a result.
 *
 *   any named source unavailable          → UNAVAILABLE (no figures: never a guess)
 *   reserves_cover_supply:  (supply − reserves) × 10 000 ≤ tolerance_bps × supply → VERIFIED
 *   reported_supply_matches: |reported − supply| × 10 000 ≤ tolerance_bps × supply → VERIFIED
 *   otherwise                             → DISCREPANCY
 */
import { MAX_DELTA_BPS } from "./limits.ts";

export const CLAIM_KINDS = ["reserves_cover_supply", "reported_supply_matches"] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

export const CHECK_STATUSES = ["VERIFIED", "DISCREPANCY", "UNAVAILABLE"] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];
/** What a read reports: a check's status, or STALE for a VERIFIED version past its window. */
export type ReadStatus = CheckStatus | "STALE";

export interface Judgement {
  within: boolean;
  /** (reported − supply) × 10 000 / supply, truncated toward zero and clamped; null when the supply is 0. */
  deltaBps: number | null;
}

const abs = (n: bigint) => (n < 0n ? -n : n);

export function judge(kind: ClaimKind, reported: bigint, supply: bigint, toleranceBps: number): Judgement {
  const tolerance = BigInt(toleranceBps) * supply;
  const shortfall = kind === "reserves_cover_supply" ? supply - reported : abs(reported - supply);
  const within = shortfall * 10_000n <= tolerance;
  if (supply === 0n) return { within, deltaBps: null };
  const delta = ((reported - supply) * 10_000n) / supply;
  const bound = BigInt(MAX_DELTA_BPS);
  return { within, deltaBps: Number(delta > bound ? bound : delta < -bound ? -bound : delta) };
}

/** A VERIFIED version read at or after its expiry reports STALE; every other status reads as checked. */
export const statusAt = (statusAtCheck: CheckStatus, expiresAt: number, now: number): ReadStatus =>
  statusAtCheck === "VERIFIED" && now >= expiresAt ? "STALE" : statusAtCheck;
