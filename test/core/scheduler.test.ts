import { afterEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/open.ts";
import { openContext } from "../../src/open.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/core/log.ts";
import { retryDelayMs } from "../../src/core/scheduler.ts";
import { type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const jobRow = (h: Harness, id: string) =>
  h.ctx.db.query<{ status: string; attempts: number; run_at: number; last_error: string | null }, [string]>("SELECT status, attempts, run_at, last_error FROM jobs WHERE id = ?").get(id);

describe("scheduler", () => {
  test("runs a job when it falls due, not before, then deletes it", async () => {
    h = makeHarness();
    const seen: unknown[] = [];
    h.ctx.scheduler.register("t.echo", (job) => {
      seen.push(job.payload);
    });
    const id = h.ctx.scheduler.schedule("t.echo", { n: 1 }, { delayMs: 60_000 })!;
    expect(await h.ctx.scheduler.runDue()).toBe(0);
    expect(seen).toEqual([]);
    h.clock.advance(60_000);
    expect(await h.ctx.scheduler.runDue()).toBe(1);
    expect(seen).toEqual([{ n: 1 }]);
    expect(jobRow(h, id)).toBeNull();
  });

  test("retries a failing job with backoff, then marks it failed with its error", async () => {
    h = makeHarness();
    let calls = 0;
    h.ctx.scheduler.register("t.fail", () => {
      calls++;
      throw new Error(`boom ${calls}`);
    });
    const id = h.ctx.scheduler.schedule("t.fail", {}, { maxAttempts: 3 })!;
    await h.ctx.scheduler.runDue();
    let row = jobRow(h, id)!;
    expect(row.status).toBe("pending");
    expect(row.attempts).toBe(1);
    expect(row.run_at).toBe(h.clock.now() + retryDelayMs(1));
    expect(row.last_error).toBe("boom 1");
    h.clock.advance(retryDelayMs(1) - 1);
    expect(await h.ctx.scheduler.runDue()).toBe(0);
    h.clock.advance(1);
    await h.ctx.scheduler.runDue();
    h.clock.advance(retryDelayMs(2));
    await h.ctx.scheduler.runDue();
    row = jobRow(h, id)!;
    expect(calls).toBe(3);
    expect(row.status).toBe("failed");
    expect(row.last_error).toBe("boom 3");
    h.clock.advance(retryDelayMs(3) * 10);
    expect(await h.ctx.scheduler.runDue()).toBe(0);
    expect(h.ctx.scheduler.stats().failed).toBe(1);
    h.clock.advance(31 * 86_400_000);
    expect(h.ctx.scheduler.pruneFailed(30 * 86_400_000)).toBe(1);
  });

  test("a unique key allows one live job; cancel removes it", () => {
    h = makeHarness();
    h.ctx.scheduler.register("t.timer", () => {});
    expect(h.ctx.scheduler.schedule("t.timer", {}, { uniqueKey: "timer:a", delayMs: 1000 })).not.toBeNull();
    expect(h.ctx.scheduler.schedule("t.timer", {}, { uniqueKey: "timer:a", delayMs: 5 })).toBeNull();
    expect(h.ctx.scheduler.cancel("timer:a")).toBe(true);
    expect(h.ctx.scheduler.schedule("t.timer", {}, { uniqueKey: "timer:a" })).not.toBeNull();
  });

  test("a job scheduled inside a rolled-back transaction never exists", () => {
    h = makeHarness();
    expect(() =>
      h.ctx.tx.run(() => {
        h.ctx.scheduler.schedule("t.x", {});
        throw new Error("rollback");
      }),
    ).toThrow("rollback");
    expect(h.ctx.scheduler.stats().pending).toBe(0);
  });

  test("recurring jobs reschedule after every run, even a failed one", async () => {
    h = makeHarness();
    let runs = 0;
    h.ctx.scheduler.every("t.tick", 10_000, () => {
      runs++;
      if (runs === 2) throw new Error("flaky");
    });
    await h.ctx.scheduler.runDue();
    for (let i = 0; i < 3; i++) {
      h.clock.advance(10_000);
      await h.ctx.scheduler.runDue();
    }
    expect(runs).toBe(4);
    expect(h.ctx.scheduler.stats()).toMatchObject({ pending: 1, failed: 0 });
  });

  test("a job scheduled before a restart runs after it; one due while down runs at start", async () => {
    h = makeHarness();
    const dir = h.dir;
    h.ctx.scheduler.schedule("t.later", { note: "survives" }, { delayMs: 3_600_000 });
    h.ctx.close();
    // The process is "down" for two hours; then a new process opens the same data dir.
    const clock = new ManualClock(h.clock.now() + 2 * 3_600_000);
    const ctx2 = openContext(loadConfig({ dataDir: dir }, {}), { clock, log: silentLogger });
    const seen: unknown[] = [];
    ctx2.scheduler.register("t.later", (job) => {
      seen.push(job.payload);
    });
    ctx2.scheduler.start();
    for (let i = 0; i < 100 && !seen.length; i++) await Bun.sleep(5);
    await ctx2.scheduler.stop();
    ctx2.close();
    expect(seen).toEqual([{ note: "survives" }]);
    h = makeHarness({ dir }); // reopened so afterEach can close it
  });

  test("a job a crashed process left running is reclaimed when its lease expires", async () => {
    h = makeHarness();
    h.ctx.scheduler.register("t.crash", () => {});
    const id = h.ctx.scheduler.schedule("t.crash", {})!;
    // Simulate another process that claimed it and died.
    h.ctx.db.query("UPDATE jobs SET status = 'running', attempts = 1, lease_until = ? WHERE id = ?").run(h.clock.now() + 300_000, id);
    expect(await h.ctx.scheduler.runDue()).toBe(0);
    h.clock.advance(300_001);
    expect(await h.ctx.scheduler.runDue()).toBe(1);
    expect(jobRow(h, id)).toBeNull();
  });

  test("stop() waits for running jobs, and hands back one that outlives the grace", async () => {
    h = makeHarness();
    let release!: () => void;
    const blocker = new Promise<void>((r) => (release = r));
    let finished = false;
    h.ctx.scheduler.register("t.slow", async () => {
      await blocker;
      finished = true;
    });
    const id = h.ctx.scheduler.schedule("t.slow", {})!;
    h.ctx.scheduler.start();
    for (let i = 0; i < 100 && jobRow(h, id)?.status !== "running"; i++) await Bun.sleep(2);
    expect(jobRow(h, id)?.status).toBe("running");
    await h.ctx.scheduler.stop(20);
    expect(finished).toBe(false);
    expect(jobRow(h, id)).toMatchObject({ status: "pending", attempts: 0 });
    release();
    await Bun.sleep(1);
    expect(jobRow(h, id)?.status).toBe("pending"); // a late finish does not touch a released job
  });
});
