/**
 * Request metrics for the SLA report: per UTC minute, per method and route template, the
 * number of answered requests, how many were 5xx, the slowest, and a latency histogram.
 *
 * The per-request cost is a few in-memory increments (app.ts's response hook calls record());
 * a recurring job merges the counts into request_stats every minute, so they survive restarts
 * without a database write per request. What a crash loses is at most the last minute's counts.
 * Rows older than the health-sample retention are pruned by the same job: the SLA report pairs
 * both, over windows no longer than that.
 */
import type { Context } from "../../context.ts";
import { BUCKET_COUNT, bucketOf } from "./latency-histogram.ts";

export const REQUEST_STATS_JOB = "reports.request_stats";
export const FLUSH_EVERY_MS = 60_000;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Anything else (WebDAV verbs, junk) is counted as OTHER, so a client cannot grow the table with made-up methods. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

interface Cell {
  minute: number;
  method: string;
  route: string;
  requests: number;
  errors: number;
  maxUs: number;
  buckets: Uint32Array;
}

/** One route's merged figures over a window. */
export interface RouteStats {
  method: string;
  route: string;
  requests: number;
  errors_5xx: number;
  max_ms: number;
  buckets: number[];
}

type Sparse = Record<string, number>;

export class RequestStats {
  private cells = new Map<string, Cell>();

  constructor(private readonly ctx: Context) {}

  /** Counts one answered request. `route` is the template ("/v1/keys/:id"), never the raw path. */
  record(method: string, route: string, status: number, ms: number): void {
    const minute = Math.floor(this.ctx.clock.now() / MINUTE_MS) * MINUTE_MS;
    const m = METHODS.has(method) ? method : "OTHER";
    const key = `${minute} ${m} ${route}`;
    let cell = this.cells.get(key);
    if (!cell) {
      cell = { minute, method: m, route, requests: 0, errors: 0, maxUs: 0, buckets: new Uint32Array(BUCKET_COUNT) };
      this.cells.set(key, cell);
    }
    cell.requests++;
    if (status >= 500) cell.errors++;
    const us = Math.max(0, Math.round(ms * 1000));
    if (us > cell.maxUs) cell.maxUs = us;
    cell.buckets[bucketOf(ms)]!++;
  }

  /** Minute-route cells counted in memory and not yet written. */
  get pending(): number {
    return this.cells.size;
  }

  /**
   * Merges the in-memory counts into request_stats in one transaction and starts afresh. A
   * minute can be written more than once (the flush is not aligned to minutes), so counts add.
   * If the write fails the counts go back to memory for the next flush.
   */
  flush(): number {
    if (!this.cells.size) return 0;
    const batch = this.cells;
    this.cells = new Map();
    const { db, tx } = this.ctx;
    try {
      tx.run(() => {
        const existing = db.query<{ buckets: string }, [number, string, string]>("SELECT buckets FROM request_stats WHERE minute = ? AND method = ? AND route = ?");
        const upsert = db.query<unknown, [number, string, string, number, number, number, string]>(
          `INSERT INTO request_stats (minute, method, route, requests, errors_5xx, max_us, buckets) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (minute, method, route) DO UPDATE SET requests = requests + excluded.requests, errors_5xx = errors_5xx + excluded.errors_5xx,
             max_us = max(max_us, excluded.max_us), buckets = excluded.buckets`,
        );
        for (const c of batch.values()) {
          const merged: Sparse = JSON.parse(existing.get(c.minute, c.method, c.route)?.buckets ?? "{}") as Sparse;
          c.buckets.forEach((n, i) => {
            if (n) merged[i] = (merged[i] ?? 0) + n;
          });
          upsert.run(c.minute, c.method, c.route, c.requests, c.errors, c.maxUs, JSON.stringify(merged));
        }
      });
    } catch (err) {
      for (const [key, c] of batch) this.restore(key, c);
      throw err;
    }
    return batch.size;
  }

  private restore(key: string, c: Cell): void {
    const current = this.cells.get(key);
    if (!current) {
      this.cells.set(key, c);
      return;
    }
    current.requests += c.requests;
    current.errors += c.errors;
    current.maxUs = Math.max(current.maxUs, c.maxUs);
    c.buckets.forEach((n, i) => (current.buckets[i]! += n));
  }

  /** Forgets minutes older than the retention. */
  prune(): number {
    return this.ctx.db.query("DELETE FROM request_stats WHERE minute < ?").run(this.ctx.clock.now() - this.ctx.config.health.retention_days * DAY_MS).changes;
  }

  /** Each method and route's figures over the minutes that start in [from, to), the in-memory counts included. */
  window(from: number, to: number): RouteStats[] {
    this.flush();
    const { db } = this.ctx;
    const routes = db
      .query<{ method: string; route: string; requests: number; errors: number; max_us: number }, [number, number]>(
        `SELECT method, route, sum(requests) AS requests, sum(errors_5xx) AS errors, max(max_us) AS max_us
         FROM request_stats WHERE minute >= ? AND minute < ? GROUP BY method, route`,
      )
      .all(from, to);
    const buckets = db
      .query<{ method: string; route: string; bucket: number; n: number }, [number, number]>(
        `SELECT s.method, s.route, CAST(b.key AS INTEGER) AS bucket, sum(b.value) AS n
         FROM request_stats s, json_each(s.buckets) b WHERE s.minute >= ? AND s.minute < ? GROUP BY s.method, s.route, bucket`,
      )
      .all(from, to);
    const byRoute = new Map<string, RouteStats>();
    for (const r of routes) {
      byRoute.set(`${r.method} ${r.route}`, { method: r.method, route: r.route, requests: r.requests, errors_5xx: r.errors, max_ms: r.max_us / 1000, buckets: new Array<number>(BUCKET_COUNT).fill(0) });
    }
    for (const b of buckets) {
      const route = byRoute.get(`${b.method} ${b.route}`);
      if (route && b.bucket >= 0 && b.bucket < BUCKET_COUNT) route.buckets[b.bucket] = b.n;
    }
    return [...byRoute.values()];
  }
}

/** One recorder per context (tests open many); created on first use. */
const recorders = new WeakMap<Context, RequestStats>();

export function requestStats(ctx: Context): RequestStats {
  let r = recorders.get(ctx);
  if (!r) recorders.set(ctx, (r = new RequestStats(ctx)));
  return r;
}

export function registerRequestStatsJobs(ctx: Context): void {
  ctx.scheduler.every(REQUEST_STATS_JOB, FLUSH_EVERY_MS, () => {
    const stats = requestStats(ctx);
    stats.flush();
    stats.prune();
  });
}
