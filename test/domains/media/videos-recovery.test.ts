/**
 * Video jobs when things go wrong between the steps: svc restarted mid-job, two polls of the
 * same finished job at once, a provider that does not answer for a while, a download that
 * breaks off, a chain of polls that broke (the watchdog), a hold the meter's sweeper already
 * gave back. Each ends with the job billed at most once and the hold never left open.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { registerJobs } from "../../../src/jobs.ts";
import { pollJob } from "../../../src/domains/media/videos/poll.ts";
import { type Harness, makeHarness } from "../../support/harness.ts";
import { balance, USD, usageEvents } from "../inference/inference-support.ts";
import { startMediaGateway, VIDEO_PRICE_PER_SECOND } from "./media-support.ts";
import { auth, jobOf, POLL_MS, startJob, tick, untilFinished } from "./videos-support.ts";

const CREDIT = 100 * USD;
const videoEvents = (rows: any[]) => rows.filter((e) => e.kind === "video");

const opened: Harness[] = [];
afterEach(() => {
  for (const h of opened.splice(0)) {
    try {
      h.close();
    } catch {
      // closed by the test
    }
  }
});

describe("svc restarted mid-job", () => {
  test("the job's polls survive in the jobs table: after the restart it is delivered and billed once", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g, { prompt: "[[polls 3]] across a restart" });
    await tick(g);
    expect((await jobOf(g, created.id)).status).toBe("running");
    const { providers, models } = g.h.ctx.config;
    const dir = g.h.dir;
    const clock = g.h.clock;
    await g.stop();

    const h = makeHarness({ dir, clock, config: (c) => Object.assign(c, { providers, models }) });
    opened.push(h);
    registerJobs(h.ctx);
    const get = async () => (await h.json("GET", `/v1/videos/generations/${created.id}`, { headers: auth(g.key) })).body;
    expect(await get()).toMatchObject({ status: "running", billed: false });
    expect(h.ctx.ledger.balance(g.accountId).held_micro_usd).toBe(12 * VIDEO_PRICE_PER_SECOND);

    let job = await get();
    for (let i = 0; i < 5 && job.status === "running"; i++) {
      clock.advance(POLL_MS);
      await h.ctx.scheduler.runDue();
      job = await get();
    }
    expect(job).toMatchObject({ status: "succeeded", billed: true, cost_micro_usd: 4 * VIDEO_PRICE_PER_SECOND, asset_available: true });
    expect(h.ctx.ledger.balance(g.accountId)).toEqual({ balance_micro_usd: CREDIT - 4 * VIDEO_PRICE_PER_SECOND, held_micro_usd: 0, spendable_micro_usd: CREDIT - 4 * VIDEO_PRICE_PER_SECOND });
    const res = await h.request("GET", `/v1/videos/generations/${created.id}/content`, { headers: auth(g.key) });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    const uses = h.ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM usage_events WHERE account_id = ? AND kind = 'video'").get(g.accountId)!.n;
    expect(uses).toBe(1);
  });
});

describe("idempotent steps", () => {
  test("two polls of a finished job at once: one delivery, one bill, the loser's copy destroyed", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g, { prompt: "[[polls 1]] twice" });
    await Promise.all([pollJob(g.h.ctx, created.id), pollJob(g.h.ctx, created.id)]);
    const job = await jobOf(g, created.id);
    expect(job).toMatchObject({ status: "succeeded", billed: true, cost_micro_usd: 4 * VIDEO_PRICE_PER_SECOND });
    expect(videoEvents(usageEvents(g))).toHaveLength(1);
    expect(balance(g).held_micro_usd).toBe(0);
    const live = g.h.ctx.db.query<{ id: string }, []>("SELECT id FROM media_assets WHERE destroyed_at IS NULL").all();
    expect(live).toHaveLength(1);
    // The scheduled poll, and any later ones, change nothing.
    await tick(g);
    await pollJob(g.h.ctx, created.id);
    expect(videoEvents(usageEvents(g))).toHaveLength(1);
  });

  test("a provider that does not answer for a while: the job keeps polling, then succeeds", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g);
    const videos = g.h.ctx.catalog.current().provider("vid")!.adapter.videos!;
    const real = videos.retrieve;
    let outages = 3;
    (videos as { retrieve: typeof real }).retrieve = (id, options) => (outages-- > 0 ? Promise.reject(new Error("connection reset")) : real(id, options));
    for (let i = 0; i < 3; i++) {
      await tick(g);
      expect((await jobOf(g, created.id)).status).toBe("queued");
    }
    const done = await untilFinished(g, created.id);
    expect(done).toMatchObject({ status: "succeeded", billed: true });
    expect(videoEvents(usageEvents(g))).toHaveLength(1);
  });

  test("a download that breaks off: nothing billed, nothing served; the next poll delivers with the same receipt id", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g, { prompt: "[[polls 1]] flaky download" });
    const videos = g.h.ctx.catalog.current().provider("vid")!.adapter.videos!;
    const real = videos.content;
    let breaks = 1;
    (videos as { content: typeof real }).content = (id, options) => (breaks-- > 0 ? Promise.reject(new Error("stream cut")) : real(id, options));
    await tick(g);
    // Rendered at the provider, not delivered yet.
    expect(await jobOf(g, created.id)).toMatchObject({ status: "running", progress: 100, billed: false, asset_available: false });
    const chosen = g.h.ctx.db.query<{ r: string }, [string]>("SELECT receipt_id AS r FROM video_jobs WHERE id = ?").get(created.id)!.r;
    expect(chosen).toStartWith("rcpt_");
    expect(balance(g).held_micro_usd).toBe(12 * VIDEO_PRICE_PER_SECOND);
    await tick(g);
    const done = await jobOf(g, created.id);
    expect(done).toMatchObject({ status: "succeeded", billed: true });
    expect(done.receipt.id).toBe(chosen);
  });

  test("a chain of polls that broke: the watchdog expires the job past its deadline and releases the hold", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g, { prompt: "[[never]] orphaned" });
    // As if the poll's row were lost.
    g.h.ctx.db.query("DELETE FROM jobs WHERE kind = 'media.video_poll'").run();
    await tick(g, g.h.ctx.config.media.video_max_job_secs * 1000);
    expect((await jobOf(g, created.id)).status).toBe("queued");
    await tick(g, 11 * 60_000);
    const done = await jobOf(g, created.id);
    expect(done).toMatchObject({ status: "expired", billed: false, error: { code: "deadline_exceeded" } });
    expect(balance(g)).toEqual({ balance_micro_usd: CREDIT, held_micro_usd: 0, spendable_micro_usd: CREDIT });
  });

  test("a hold the meter's sweeper already gave back: the finished render is not billed (expired), its copy destroyed", async () => {
    const g = await startMediaGateway();
    const created = await startJob(g, { prompt: "[[polls 1]] too late" });
    // No scheduler work behind the test's back (the server's loop would run the poll and the watchdog).
    g.h.ctx.db.query("DELETE FROM jobs").run();
    // svc was away past the deadline and the hold's margin; the sweeper runs first.
    g.h.clock.advance(g.h.ctx.config.media.video_max_job_secs * 1000 + 31 * 60_000);
    expect(g.h.ctx.meter.sweep()).toBe(1);
    await pollJob(g.h.ctx, created.id);
    const done = await jobOf(g, created.id);
    expect(done).toMatchObject({ status: "expired", billed: false, asset_available: false, error: { code: "hold_expired" } });
    expect(videoEvents(usageEvents(g))).toHaveLength(0);
    expect(balance(g)).toEqual({ balance_micro_usd: CREDIT, held_micro_usd: 0, spendable_micro_usd: CREDIT });
    expect(g.h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM media_assets WHERE destroyed_at IS NULL").get()!.n).toBe(0);
  });
});
