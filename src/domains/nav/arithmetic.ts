/**
 * The NAV's arithmetic, all in BigInt: decimal text is read exactly (never through a float), every
 * figure is the floor of the exact value, and a gap between two sources is rounded up — so a
 * figure never overstates what the book is worth and a gap is never shown smaller than it is.
 * Pure: valuation.ts supplies the figures the sources answered.
 */
import { scaledUnits } from "../evidence/index.ts";

/** An exact non-negative decimal: n / 10^s. */
export interface Exact {
  n: bigint;
  s: number;
}

const TEN = 10n;
export const MICRO = 1_000_000n;
export const BPS = 10_000n;

/** Canonical decimal text (evidence's decimalText, or a validated quantity) as an exact value. */
export function exact(text: string): Exact {
  const dot = text.indexOf(".");
  const s = dot < 0 ? 0 : text.length - dot - 1;
  return { n: scaledUnits(text, s), s };
}

const atScale = (x: Exact, s: number): bigint => x.n * TEN ** BigInt(s - x.s);

/** a / b rounded toward minus infinity (BigInt division truncates toward zero); b > 0. */
export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

/** a / b rounded up; a ≥ 0, b > 0. */
export const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

export function compareExact(a: Exact, b: Exact): number {
  const s = Math.max(a.s, b.s);
  const x = atScale(a, s);
  const y = atScale(b, s);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Gross asset value in micro-USD: the floor of the exact sum of quantity × price × 10^6 (one
 * rounding for the whole book, not one per position).
 */
export function grossMicroUsd(positions: { quantity: Exact; price: Exact }[]): bigint {
  const s = positions.reduce((m, p) => Math.max(m, p.quantity.s + p.price.s), 0);
  let sum = 0n;
  for (const p of positions) sum += p.quantity.n * p.price.n * TEN ** BigInt(s - p.quantity.s - p.price.s);
  return (sum * MICRO) / TEN ** BigInt(s);
}

/** NAV of `unitScale` supply micro-units: floor(total × unitScale / supply); supply > 0. */
export const navPerUnit = (totalMicroUsd: bigint, unitScale: bigint, supplyMicroUnits: bigint): bigint => floorDiv(totalMicroUsd * unitScale, supplyMicroUnits);

/** |observed − reference| in basis points of the reference, rounded up; null when the reference is 0 (no ratio exists). */
export function deltaBps(observed: bigint, reference: bigint): bigint | null {
  if (reference === 0n) return observed === 0n ? 0n : null;
  const gap = observed > reference ? observed - reference : reference - observed;
  return ceilDiv(gap * BPS, reference);
}

/**
 * The quotes of one position: the lowest (the one valued: the conservative choice) and the spread
 * (highest − lowest) in basis points of the lowest, rounded up; null when the lowest is 0 and the
 * highest is not.
 */
export function spread(prices: Exact[]): { lowest: Exact; bps: bigint | null } {
  let lowest = prices[0]!;
  let highest = prices[0]!;
  for (const p of prices) {
    if (compareExact(p, lowest) < 0) lowest = p;
    if (compareExact(p, highest) > 0) highest = p;
  }
  const s = Math.max(lowest.s, highest.s);
  return { lowest, bps: deltaBps(atScale(highest, s), atScale(lowest, s)) };
}

/** A rounded-up gap exceeds an integer tolerance exactly when the exact gap does, so comparing the shown figure is exact. */
export const overTolerance = (bps: bigint | null, toleranceBps: number): boolean => bps === null || bps > BigInt(toleranceBps);
