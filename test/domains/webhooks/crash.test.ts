/**
 * Webhooks survive kill -9. Through the compiled binary: events are queued, a receiver on
 * 127.0.0.1 fails intermittently (the first attempt of about one event in four) and answers
 * slowly enough that deliveries are in flight, and `svc serve` is SIGKILLed several times
 * mid-delivery, restarted each time on the same data dir, with more events queued while it is
 * down. After the last restart every event is delivered at least once, every duplicate carries
 * its event's id, and the distinct ids delivered are exactly the ids enqueued. The duplicate
 * rate is printed.
 *
 * The retry schedule runs on the wall clock in a real process, so while svc is down (and while
 * it drains at the end) the test makes pending attempt jobs due at once, as if their 30 s to 1 h
 * had passed; that is the only thing it changes behind svc's back.
 */
import { beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/open.ts";
import { openContext, type Context } from "../../../src/open.ts";
import { silentLogger } from "../../../src/core/log.ts";
import { createAccount } from "../../../src/domains/accounts/service.ts";
import { mintKey } from "../../../src/domains/keys/service.ts";
import { createWebhook } from "../../../src/domains/webhooks/service.ts";
import { runSvc, serveSvc, svcBinary } from "../../support/binary.ts";
import { tempDir } from "../../support/harness.ts";
import { startReceiver } from "../../support/receiver.ts";

beforeAll(async () => {
  await svcBinary();
}, 120_000);

const FIRST_BATCH = 150;
const KILLS = 4;
const PER_RESTART = 50;

async function withCtx<T>(dir: string, fn: (ctx: Context) => T | Promise<T>): Promise<T> {
  const ctx = openContext(loadConfig({ dataDir: dir }, {}), { log: silentLogger });
  try {
    return await fn(ctx);
  } finally {
    ctx.close();
  }
}

/** One key_created event per key minted, as `svc keys mint` queues them (another process than serve). */
const enqueue = (dir: string, accountId: string, n: number) =>
  withCtx(dir, (ctx) => {
    for (let i = 0; i < n; i++) mintKey(ctx, { accountId });
  });

test("kill -9 mid-delivery, several times: nothing lost, duplicates keep their id", async () => {
  const dir = join(tempDir(), "data");
  const setup = await runSvc(["setup", "--yes", "--data-dir", dir, "--replica", "off", "--allow-private-webhooks"]);
  expect(setup.code).toBe(0);
  expect(readFileSync(join(dir, "svc.toml"), "utf8")).toMatch(/\[webhooks\]\s*\nallow_private = true/);

  const rx = await startReceiver();
  rx.delayMs = 15; // answers take a moment, so a kill finds deliveries in flight
  const firstSeen = new Set<string>();
  rx.fallback = (r) => {
    const id = String(r.json?.id);
    if (firstSeen.has(id)) return 200;
    firstSeen.add(id);
    const bucket = [...id].reduce((n, c) => n + c.charCodeAt(0), 0) % 4;
    return bucket === 0 ? 500 : bucket === 1 && id.endsWith("a") ? "reset" : 200;
  };

  const { accountId, webhookId } = await withCtx(dir, async (ctx) => {
    const account = createAccount(ctx);
    const hook = await createWebhook(ctx, { accountId: account.id, url: rx.url("/crash"), events: ["key_created"] });
    rx.setSecret("/crash", hook.secret);
    return { accountId: account.id, webhookId: hook.view.id };
  });
  await enqueue(dir, accountId, FIRST_BATCH);

  const db = new Database(join(dir, "svc.db"));
  db.run("PRAGMA busy_timeout = 5000");
  // Retries fall due at once (the wall-clock 30 s, 5 min and 1 h are what the in-process tests check).
  const retriesDueNow = () => db.query("UPDATE jobs SET run_at = ? WHERE kind = 'webhooks.deliver' AND status = 'pending' AND run_at > ?").run(Date.now(), Date.now());

  let killedInFlight = 0;
  for (let round = 0; round < KILLS; round++) {
    const served = await serveSvc(dir);
    const before = rx.received.length;
    const deadline = Date.now() + 10_000;
    while (rx.received.length < before + 20 && Date.now() < deadline) await Bun.sleep(5);
    // Requests the receiver has seen but not answered yet are in flight right now.
    killedInFlight += rx.received.filter((r) => Date.now() - r.at < rx.delayMs).length;
    served.proc.kill("SIGKILL");
    await served.proc.exited;
    expect(served.proc.signalCode).toBe("SIGKILL");
    retriesDueNow();
    await enqueue(dir, accountId, PER_RESTART);
  }

  const enqueued = db.query<{ id: string }, []>("SELECT id FROM outbox_events WHERE type = 'key_created' ORDER BY seq").all().map((r) => r.id);
  expect(enqueued).toHaveLength(FIRST_BATCH + KILLS * PER_RESTART);
  const served = await serveSvc(dir);
  try {
    const delivered = () => db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND status = 'delivered'").get(webhookId)!.n;
    const deadline = Date.now() + 60_000;
    while (delivered() < enqueued.length && Date.now() < deadline) {
      retriesDueNow();
      await Bun.sleep(50);
    }
    expect(delivered()).toBe(enqueued.length);
  } finally {
    expect(await served.stop()).toBe(0);
  }

  const accepted = rx.accepted();
  const distinct = new Set(accepted.map((r) => r.json.id));
  expect(accepted.every((r) => r.signatureValid === true)).toBe(true);
  expect(accepted.every((r) => r.headers["x-svc-event-id"] === r.json.id && r.json.type === "key_created")).toBe(true);
  expect([...distinct].sort()).toEqual([...enqueued].sort());
  expect(distinct.size).toBe(enqueued.length);
  const failedFirst = rx.received.filter((r) => r.answered !== 200).length;
  const duplicates = accepted.length - distinct.size;
  console.log(
    `[webhook-crash] ${enqueued.length} events, ${KILLS} kill -9s (${killedInFlight} requests in flight at the kills), ${failedFirst} scripted failures; ` +
      `${accepted.length} accepted deliveries for ${distinct.size} distinct ids: ${duplicates} duplicates = ${((100 * duplicates) / distinct.size).toFixed(2)}% duplicate rate`,
  );
  db.close();
  await rx.close();
}, 120_000);
