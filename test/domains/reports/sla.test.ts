/**
 * POST /v1/reports/sla through HTTP: availability from a scripted set of health samples (the
 * /v1/status rule), latency percentiles and error rates from scripted request metrics, the
 * window rules, and request metrics that are flushed by the scheduler and survive reopening
 * the data dir. Plus the histogram arithmetic the percentiles rest on.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { BUCKET_BOUNDS_MS, BUCKET_COUNT, bucketOf, percentileMs } from "../../../src/domains/reports/latency-histogram.ts";
import { REQUEST_STATS_JOB, requestStats } from "../../../src/domains/reports/request-stats.ts";
import { registerJobs } from "../../../src/jobs.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const MIN = 60_000;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

function session() {
  return bearer(accountWithSession(h.ctx).session.token);
}

const sla = (auth: Record<string, string>, body?: Record<string, unknown>) => h.json("POST", "/v1/reports/sla", { headers: auth, body });

/** Health samples as the scheduler writes them, one per minute unless told otherwise. */
function sample(at: number, ok: boolean) {
  h.ctx.db.query("INSERT INTO health_samples (at, ok, detail) VALUES (?, ?, '{}')").run(at, ok ? 1 : 0);
}

/** `n` requests of one route at the clock's current minute. */
function requests(n: number, method: string, route: string, ms: number, status = 200) {
  for (let i = 0; i < n; i++) requestStats(h.ctx).record(method, route, status, ms);
}

/**
 * The script: a 100-minute window ending at T. Samples every minute except a 10-minute outage,
 * 5 of them unhealthy, plus one before the window and one at its (exclusive) end.
 * Requests: GET /v1/a 100 (one 5xx), POST /v1/b/:id 10 (five 5xx), and requests outside the
 * window that must not count.
 */
function script() {
  const T = h.clock.now();
  const from = T - 100 * MIN;
  sample(from - MIN, false);
  for (let i = 0; i < 100; i++) {
    if (i >= 40 && i < 50) continue; // down: no samples at all
    sample(from + i * MIN, !(i >= 5 && i < 10));
  }
  sample(T, true);
  h.clock.set(from - 2 * MIN);
  requests(1000, "GET", "/v1/a", 5_000, 500); // before the window
  h.clock.set(from + 5 * MIN + 30_000);
  requests(50, "GET", "/v1/a", 3);
  requests(45, "GET", "/v1/a", 40);
  h.clock.set(from + 70 * MIN);
  requests(4, "GET", "/v1/a", 180);
  requests(1, "GET", "/v1/a", 900, 500);
  h.clock.set(from + 99 * MIN + 59_999);
  requests(5, "POST", "/v1/b/:id", 2_500, 503);
  requests(5, "POST", "/v1/b/:id", 2_500, 201);
  h.clock.set(T);
  requests(1000, "GET", "/v1/a", 5_000, 500); // the minute starting at `to`: outside
  return { T, from };
}

const EXPECTED_REQUESTS = {
  total: 110,
  errors_5xx: 6,
  error_rate: 0.054545,
  // p50: rank 55 falls in ≤40 ms; p95 (rank 105) and p99 (rank 109) in the ≤3000 ms bucket, clamped to the slowest seen.
  latency_ms: { p50: 40, p95: 2_500, p99: 2_500, max: 2_500 },
  by_route: [
    { method: "GET", route: "/v1/a", total: 100, errors_5xx: 1, error_rate: 0.01, latency_ms: { p50: 3, p95: 40, p99: 200, max: 900 } },
    { method: "POST", route: "/v1/b/:id", total: 10, errors_5xx: 5, error_rate: 0.5, latency_ms: { p50: 2_500, p95: 2_500, p99: 2_500, max: 2_500 } },
  ],
};

describe("POST /v1/reports/sla", () => {
  test("availability is healthy ÷ expected samples; latency and error rate come from the request metrics", async () => {
    h = makeHarness();
    const auth = session();
    const { T, from } = script();
    const r = await sla(auth, { from: iso(from), to: iso(T) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ from: iso(from), to: iso(T), generated_at: iso(T) });
    expect(r.body.availability).toEqual({ ratio: 0.85, healthy_samples: 85, samples: 90, expected_samples: 100, sample_interval_secs: 60, since: iso(from) });
    expect(r.body.requests).toEqual(EXPECTED_REQUESTS);
    expect(r.body.methodology.bucket_bounds_ms).toEqual([...BUCKET_BOUNDS_MS]);
    expect(r.body.methodology.request_resolution_secs).toBe(60);
  });

  test("default window: the 30 days up to now, counted from the first sample on record", async () => {
    h = makeHarness();
    const auth = session();
    const { T, from } = script();
    const r = await sla(auth);
    expect(r.status).toBe(200);
    expect(r.body.from).toBe(iso(T - 30 * DAY));
    expect(r.body.to).toBe(iso(T));
    // The first sample is one minute before `from` of the script: 101 expected, 91 taken, 85 healthy.
    expect(r.body.availability).toMatchObject({ since: iso(from - MIN), expected_samples: 101, samples: 91, healthy_samples: 85, ratio: 0.841584 });
    // The 1000 slow requests two minutes before the script's window are inside the 30 days.
    expect(r.body.requests.total).toBe(1110);
    // Only `from`: up to now.
    const since = await sla(auth, { from: iso(from) });
    expect(since.body.to).toBe(iso(T));
    expect(since.body.requests.total).toBe(110);
  });

  test("before any sample or request the figures are null, not a made-up 100%", async () => {
    h = makeHarness();
    const r = await sla(session());
    expect(r.status).toBe(200);
    expect(r.body.availability).toMatchObject({ ratio: null, samples: 0, expected_samples: 0, since: null });
    expect(r.body.requests).toEqual({ total: 0, errors_5xx: 0, error_rate: null, latency_ms: { p50: null, p95: null, p99: null, max: null }, by_route: [] });
  });

  test("window rules: at most 90 days, over, ordered, RFC 3339; 400 names the field", async () => {
    h = makeHarness();
    const auth = session();
    const now = h.clock.now();
    const cases: [Record<string, unknown>, string][] = [
      [{ from: iso(now - 90 * DAY - 1) }, "from"],
      [{ from: iso(now - DAY), to: iso(now + MIN) }, "to"],
      [{ from: "2026-11-01" }, "from"],
      [{ to: "soon" }, "to"],
      [{ from: iso(now - DAY), to: iso(now - DAY) }, "to"],
      [{ from: 5 }, "from"],
      [{ window: "30d" }, "window"],
    ];
    for (const [body, param] of cases) {
      const r = await sla(auth, body);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    expect((await sla(auth, { from: iso(now - 90 * DAY) })).status).toBe(200);
    expect((await h.json("POST", "/v1/reports/sla")).status).toBe(401);
  });

  test("request metrics are flushed by the scheduler and survive reopening the data dir", async () => {
    h = makeHarness();
    const { T, from } = script();
    expect(requestStats(h.ctx).pending).toBeGreaterThan(0);
    registerJobs(h.ctx);
    await h.ctx.scheduler.runDue();
    expect(requestStats(h.ctx).pending).toBe(0);
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM request_stats").get()!.n).toBe(5);
    expect(h.ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM jobs WHERE kind = ?").get(REQUEST_STATS_JOB)!.n).toBe(1);
    const dir = h.dir;
    h.close();
    h = makeHarness({ dir });
    h.clock.set(T);
    expect(requestStats(h.ctx).pending).toBe(0);
    const r = await sla(session(), { from: iso(from), to: iso(T) });
    expect(r.body.requests).toEqual(EXPECTED_REQUESTS);
    expect(r.body.availability.ratio).toBe(0.85);
  });

  test("a minute flushed twice adds up; rows older than the retention are pruned by the job", async () => {
    h = makeHarness({ config: (c) => (c.health.retention_days = 2) });
    registerJobs(h.ctx);
    const stats = requestStats(h.ctx);
    const minute = Math.floor(h.clock.now() / MIN) * MIN;
    requests(2, "GET", "/v1/x", 1);
    stats.flush();
    requests(3, "GET", "/v1/x", 1_000, 502);
    stats.flush();
    const row = h.ctx.db.query<{ requests: number; errors_5xx: number; max_us: number; buckets: string }, [number]>("SELECT * FROM request_stats WHERE minute = ?").get(minute)!;
    expect(row).toMatchObject({ requests: 5, errors_5xx: 3, max_us: 1_000_000 });
    expect(JSON.parse(row.buckets)).toEqual({ [bucketOf(1)]: 2, [bucketOf(1_000)]: 3 });
    await h.ctx.scheduler.runDue();
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM request_stats").get()!.n).toBe(1);
    h.clock.advance(2 * DAY + MIN);
    await h.ctx.scheduler.runDue();
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM request_stats").get()!.n).toBe(0);
  });

  test("real requests are recorded by route template and method, never by raw path", async () => {
    h = makeHarness();
    const auth = session();
    const T = h.clock.now();
    await h.json("GET", "/v1/usage", { headers: auth });
    await h.json("GET", "/v1/usage/events?limit=0", { headers: auth }); // 400, still a request
    await h.json("DELETE", "/v1/keys/key_doesnotexist", { headers: auth });
    await h.json("GET", "/no/such/path/123");
    await h.request("PROPFIND", "/v1/usage", { headers: auth });
    // The response hook runs just after each response is handed over; let the last one run before time moves on.
    await new Promise((resolve) => setImmediate(resolve));
    h.clock.advance(MIN);
    const r = await sla(auth, { from: iso(T), to: iso(T + MIN) });
    const routes = Object.fromEntries(r.body.requests.by_route.map((x: { method: string; route: string; total: number }) => [`${x.method} ${x.route}`, x.total]));
    expect(routes).toEqual({ "GET /v1/usage": 1, "GET /v1/usage/events": 1, "DELETE /v1/keys/:id": 1, "GET unmatched": 1, "OTHER unmatched": 1 });
    expect(JSON.stringify(r.body)).not.toContain("key_doesnotexist");
    expect(JSON.stringify(r.body)).not.toContain("/no/such");
  });
});

describe("latency histogram", () => {
  test("a duration lands in the first bucket whose bound it does not exceed; slower than 60 s overflows", () => {
    expect(BUCKET_COUNT).toBe(BUCKET_BOUNDS_MS.length + 1);
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(0.5)).toBe(0);
    expect(bucketOf(0.51)).toBe(1);
    expect(bucketOf(40)).toBe(BUCKET_BOUNDS_MS.indexOf(40));
    expect(bucketOf(41)).toBe(BUCKET_BOUNDS_MS.indexOf(50));
    expect(bucketOf(60_000)).toBe(BUCKET_BOUNDS_MS.length - 1);
    expect(bucketOf(60_001)).toBe(BUCKET_BOUNDS_MS.length);
    for (let i = 1; i < BUCKET_BOUNDS_MS.length; i++) expect(BUCKET_BOUNDS_MS[i]! / BUCKET_BOUNDS_MS[i - 1]!).toBeLessThanOrEqual(1.5);
  });

  test("nearest-rank percentiles: the bucket's upper bound, clamped to the slowest seen, exact at rank boundaries", () => {
    const counts = new Array<number>(BUCKET_COUNT).fill(0);
    expect(percentileMs(counts, 50, 0)).toBeNull();
    counts[0] = 95;
    counts[bucketOf(100)] = 5;
    expect(percentileMs(counts, 95, 100)).toBe(0.5); // rank exactly 95, not 96
    expect(percentileMs(counts, 96, 100)).toBe(100);
    expect(percentileMs(counts, 99, 87)).toBe(87); // clamped to the max seen
    const overflow = new Array<number>(BUCKET_COUNT).fill(0);
    overflow[BUCKET_COUNT - 1] = 1;
    expect(percentileMs(overflow, 50, 95_000)).toBe(95_000);
  });
});
