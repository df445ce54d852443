import { closeSandboxes } from "../../../src/domains/sandboxes/index.ts";
import { afterEach, describe, expect, test } from "bun:test";
import { HEALTH_SAMPLE_JOB } from "../../../src/domains/status/health.ts";
import { registerJobs } from "../../../src/jobs.ts";
import { type Harness, makeHarness, tempDir } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const MIN = 60_000;

describe("GET /v1/status", () => {
  test("unknown before the first sample", async () => {
    h = makeHarness();
    const r = await h.json("GET", "/v1/status");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "unknown", last_sample: null, version: h.ctx.version });
    expect(r.body.uptime["24h"].ratio).toBeNull();
    expect(r.body.replication).toEqual({ enabled: false, state: "off", replica_kind: null, last_sync_at: null, lag_seconds: null, restarts: 0 });
  });

  test("a configured replica that is not replicating makes the next sample unhealthy", async () => {
    h = makeHarness({ replica: `file://${tempDir()}/replica` });
    registerJobs(h.ctx);
    await h.ctx.scheduler.runDue();
    const r = await h.json("GET", "/v1/status");
    expect(r.body.replication).toMatchObject({ enabled: true, state: "stopped", replica_kind: "file" });
    expect(r.body.status).toBe("degraded");
    expect(r.body.last_sample.problems).toContain("replication is stopped");
    h.ctx.replication.update({ state: "replicating", lag_seconds: 90 });
    h.clock.advance(MIN);
    await h.ctx.scheduler.runDue();
    expect((await h.json("GET", "/v1/status")).body.last_sample.problems).toContain("the replica is 90s behind");
  });

  test("the scheduler records samples; uptime counts the time svc was down against it", async () => {
    h = makeHarness();
    registerJobs(h.ctx);
    await h.ctx.scheduler.runDue(); // first sample at start
    for (let i = 0; i < 9; i++) {
      h.clock.advance(MIN);
      await h.ctx.scheduler.runDue();
    }
    let r = await h.json("GET", "/v1/status");
    expect(r.body.status).toBe("ok");
    expect(r.body.uptime["24h"]).toMatchObject({ ratio: 1, samples: 10, healthy_samples: 10, expected_samples: 10 });
    expect(r.body.process_uptime_secs).toBe(540);

    // Down for 10 minutes: no samples at all. The recurring job fell due while down and runs once after the restart.
    const { dir, clock } = h;
    h.ctx.close();
    clock.advance(10 * MIN);
    h = makeHarness({ dir, clock });
    registerJobs(h.ctx);
    await h.ctx.scheduler.runDue();
    r = await h.json("GET", "/v1/status");
    expect(r.body.uptime["24h"].samples).toBe(11);
    expect(r.body.uptime["24h"].expected_samples).toBe(20);
    expect(r.body.uptime["24h"].ratio).toBe(0.55);
    expect(r.body.uptime["7d"].ratio).toBe(0.55);
  });

  test("degraded when the last sample found a problem, or when sampling stopped", async () => {
    h = makeHarness();
    registerJobs(h.ctx);
    await h.ctx.scheduler.runDue();
    expect((await h.json("GET", "/v1/status")).body.status).toBe("ok");
    h.clock.advance(4 * MIN); // three intervals without a sample: the sampler itself is stuck
    expect((await h.json("GET", "/v1/status")).body.status).toBe("degraded");
    // A job waiting 6 minutes while svc runs (here: one no handler claims) is a problem the next sample reports…
    h.ctx.scheduler.schedule("t.unclaimed", {}, { runAt: h.clock.now() });
    h.clock.advance(6 * MIN);
    await h.ctx.scheduler.runDue();
    const r = await h.json("GET", "/v1/status");
    expect(r.body.status).toBe("degraded");
    expect(r.body.last_sample.ok).toBe(false);
    expect(r.body.last_sample.problems[0]).toMatch(/^job queue is \d+s behind$/);
    expect(h.ctx.db.query("SELECT count(*) AS n FROM jobs WHERE kind = ?").get(HEALTH_SAMPLE_JOB)).toEqual({ n: 1 });
  });

  test("jobs that fell due while svc was down are not a backlog after the restart", async () => {
    h = makeHarness();
    registerJobs(h.ctx);
    await h.ctx.scheduler.runDue();
    h.ctx.scheduler.schedule("t.unclaimed", {}, { runAt: h.clock.now() });
    const { dir, clock } = h;
    h.ctx.close();
    clock.advance(60 * MIN);
    h = makeHarness({ dir, clock });
    registerJobs(h.ctx);
    await h.ctx.scheduler.runDue();
    expect((await h.json("GET", "/v1/status")).body.last_sample).toMatchObject({ ok: true, problems: [] });
  });

  test("samples older than the retention are dropped", async () => {
    h = makeHarness({ config: (c) => (c.health.retention_days = 1) });
    registerJobs(h.ctx);
    await h.ctx.scheduler.runDue();
    h.clock.advance(86_400_000 + MIN);
    await h.ctx.scheduler.runDue();
    expect(h.ctx.db.query("SELECT count(*) AS n FROM health_samples").get()).toEqual({ n: 1 });
  });
});

test("the public sandbox posture never names a path of the host", async () => {
  // A data dir the sandbox uid cannot pass through: the runner is unavailable, and says why.
  const h = makeHarness();
  try {
    await h.ctx.sandboxes.local();
    const body = (await h.json("GET", "/v1/status")).body;
    expect(body.sandboxes.local).toBe(true);
    if (body.sandboxes.runner && !body.sandboxes.runner.available) expect(body.sandboxes.runner.reason).toContain("(a path on the host)");
    expect(JSON.stringify(body)).not.toContain(h.dir);
  } finally {
    await closeSandboxes(h.ctx);
    h.close();
  }
});
