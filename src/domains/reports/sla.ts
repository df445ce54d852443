/**
 * POST /v1/reports/sla: how the service did over a window, from what it recorded itself.
 *
 * Availability follows the rule of GET /v1/status uptime (domains/status/health.ts): healthy
 * health samples ÷ expected samples, where expected is the window (starting no earlier than
 * the first sample on record) divided by the sample interval. Time svc was down took no
 * samples and so counts against it. The window is half-open, [from, to).
 *
 * Latency and errors come from the request metrics (request-stats.ts): minutes that start
 * inside the window, merged across minutes and routes; percentiles are read from the merged
 * histogram (latency-histogram.ts states its resolution). error_rate = 5xx ÷ all answered.
 *
 * Aggregate only: no account, key or path appears, so any signed-in account may ask.
 */
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { firstSampleAt, sampleCounts } from "../status/index.ts";
import type { Period } from "../usage/index.ts";
import { BUCKET_BOUNDS_MS, BUCKET_COUNT, percentileMs } from "./latency-histogram.ts";
import { requestStats, type RouteStats } from "./request-stats.ts";

export const DEFAULT_WINDOW_DAYS = 30;
export const MAX_WINDOW_DAYS = 90;

export interface Latency {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

export interface RequestFigures {
  total: number;
  errors_5xx: number;
  /** 5xx ÷ total (six decimals); null without requests. */
  error_rate: number | null;
  latency_ms: Latency;
}

export interface SlaReport {
  from: string;
  to: string;
  generated_at: string;
  availability: {
    ratio: number | null;
    healthy_samples: number;
    samples: number;
    expected_samples: number;
    sample_interval_secs: number;
    /** The first instant counted: the later of `from` and the first sample on record; null when no sample falls before `to`. */
    since: string | null;
  };
  requests: RequestFigures & { by_route: (RequestFigures & { method: string; route: string })[] };
  methodology: {
    availability: string;
    latency: string;
    error_rate: string;
    bucket_bounds_ms: number[];
    request_resolution_secs: number;
  };
}

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 1e6) / 1e6);

export function availability(ctx: Context, period: Period): SlaReport["availability"] {
  const intervalMs = ctx.config.health.sample_interval_secs * 1000;
  const first = firstSampleAt(ctx);
  const counts = sampleCounts(ctx, period.from, period.to);
  const start = first === null ? null : Math.max(period.from, first);
  const expected = start === null || start >= period.to ? 0 : Math.max(counts.n, Math.ceil((period.to - start) / intervalMs));
  const healthy = counts.healthy ?? 0;
  return {
    ratio: ratio(healthy, expected),
    healthy_samples: healthy,
    samples: counts.n,
    expected_samples: expected,
    sample_interval_secs: ctx.config.health.sample_interval_secs,
    since: start === null || start >= period.to ? null : isoTime(start),
  };
}

function figures(requests: number, errors: number, buckets: number[], maxMs: number): RequestFigures {
  return {
    total: requests,
    errors_5xx: errors,
    error_rate: ratio(errors, requests),
    latency_ms: {
      p50: percentileMs(buckets, 50, maxMs),
      p95: percentileMs(buckets, 95, maxMs),
      p99: percentileMs(buckets, 99, maxMs),
      max: requests === 0 ? null : maxMs,
    },
  };
}

export function slaReport(ctx: Context, period: Period): SlaReport {
  const routes: RouteStats[] = requestStats(ctx).window(period.from, period.to);
  const all = new Array<number>(BUCKET_COUNT).fill(0);
  let total = 0;
  let errors = 0;
  let maxMs = 0;
  for (const r of routes) {
    total += r.requests;
    errors += r.errors_5xx;
    maxMs = Math.max(maxMs, r.max_ms);
    r.buckets.forEach((n, i) => (all[i]! += n));
  }
  const byRoute = routes
    .map((r) => ({ method: r.method, route: r.route, ...figures(r.requests, r.errors_5xx, r.buckets, r.max_ms) }))
    .sort((a, b) => b.total - a.total || a.route.localeCompare(b.route) || a.method.localeCompare(b.method));
  return {
    from: isoTime(period.from),
    to: isoTime(period.to),
    generated_at: isoTime(ctx.clock.now()),
    availability: availability(ctx, period),
    requests: { ...figures(total, errors, all, maxMs), by_route: byRoute },
    methodology: {
      availability: "healthy health samples ÷ expected samples in [from, to); expected = the window from the later of `from` and the first recorded sample, divided by the sample interval (the rule of GET /v1/status uptime), so time without samples counts as down",
      latency:
        "nearest-rank percentiles of the merged histogram of request durations (request received to response produced), reported as the upper bound of the bucket holding the percentile, clamped to the slowest request seen: at most one bucket (≤ 1.5×) above the true value",
      error_rate: "responses with status ≥ 500 ÷ all answered requests",
      bucket_bounds_ms: [...BUCKET_BOUNDS_MS],
      request_resolution_secs: 60,
    },
  };
}
