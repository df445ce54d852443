/**
 * The fixed latency histogram of the request metrics. Durations are counted into buckets
 * whose upper bounds step by at most 1.5× (0.5 ms … 60 s, then one bucket for anything
 * slower), so a percentile read from merged counts is exact to one bucket: it is reported as
 * the upper bound of the bucket that holds it (never lower than the truth), clamped to the
 * slowest request actually seen. Fixed bounds make histograms of any minutes and routes
 * mergeable by adding counts. The bounds are stored by index: changing them needs a new table.
 */

export const BUCKET_BOUNDS_MS = [
  0.5, 0.75, 1, 1.5, 2, 3, 4, 5, 7.5, 10, 15, 20, 30, 40, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000, 7500, 10_000, 15_000, 20_000,
  30_000, 45_000, 60_000,
] as const;

/** One bucket per bound, plus the overflow bucket (slower than the last bound). */
export const BUCKET_COUNT = BUCKET_BOUNDS_MS.length + 1;

/** Index of the bucket for a duration: the first bound it does not exceed (binary search; this runs per request). */
export function bucketOf(ms: number): number {
  let lo = 0;
  let hi: number = BUCKET_BOUNDS_MS.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ms <= BUCKET_BOUNDS_MS[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The p-th percentile (p a whole number 1–100) by nearest rank: the first bucket whose
 * cumulative count reaches ceil(p × total / 100), read as its upper bound and clamped to
 * `maxMs`. null when empty. Integer p keeps the rank exact (0.95 × 100 is 95.00000000000001).
 */
export function percentileMs(counts: ArrayLike<number>, p: number, maxMs: number): number | null {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i]!;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((p * total) / 100));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return i < BUCKET_BOUNDS_MS.length ? Math.min(BUCKET_BOUNDS_MS[i]!, maxMs) : maxMs;
  }
  return maxMs;
}
