/**
 * Webhook delivery against a real receiver on 127.0.0.1 (test/support/receiver.ts checks every
 * signature with node:crypto): the envelope and headers, the exact retry schedule (the clock is
 * moved, never slept), every kind of failure, auto-disable and its reset, the delivery log,
 * test events, replay after an outage, the outbound guard at delivery time, events from another
 * process, restarts and pruning.
 */
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { openContext } from "../../../src/open.ts";
import { silentLogger } from "../../../src/core/log.ts";
import { mintKey } from "../../../src/domains/keys/service.ts";
import { registerWebhookJobs, RETRY_DELAYS_MS } from "../../../src/domains/webhooks/delivery.ts";
import { createWebhook, listDeliveries, sendTestEvent } from "../../../src/domains/webhooks/service.ts";
import { freePort } from "../../support/binary.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { type Receiver, startReceiver } from "../../support/receiver.ts";

let h: Harness;
let rx: Receiver;
afterEach(async () => {
  h?.close();
  await rx?.close();
});

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A harness whose webhooks may reach 127.0.0.1 (the receiver), with the dispatcher wired and a 1 s timeout. */
async function setUp() {
  h = makeHarness({
    config: (c) => {
      c.webhooks.allow_private = true;
      c.webhooks.timeout_secs = 1;
    },
  });
  registerWebhookJobs(h.ctx);
  rx = await startReceiver();
  const { account, session } = accountWithSession(h.ctx);
  return { accountId: account.id, auth: bearer(session.token) };
}

async function createHook(auth: Record<string, string>, path = "/hook", events: string[] = ["*"], url = rx.url(path)) {
  const r = await h.json("POST", "/v1/webhooks", { headers: auth, body: { url, events } });
  expect(r.status).toBe(201);
  rx.setSecret(path, r.body.secret);
  return r.body as { id: string; secret: string };
}

const run = () => h.ctx.scheduler.runDue();
const deliveries = async (auth: Record<string, string>, id: string) => (await h.json("GET", `/v1/webhooks/${id}/deliveries`, { headers: auth })).body as any[];
const hookView = async (auth: Record<string, string>, id: string) => ((await h.json("GET", "/v1/webhooks", { headers: auth })).body as any[]).find((w) => w.id === id);
const mintKeyEvent = async (auth: Record<string, string>) => (await h.json("POST", "/v1/keys", { headers: auth, body: {} })).body as { id: string };
const testEvent = async (auth: Record<string, string>, id: string) => {
  const r = await h.json("POST", `/v1/webhooks/${id}/test`, { headers: auth });
  expect(r.status).toBe(202);
  return r.body.event_id as string;
};

/** Runs what is due now, then walks the clock through the whole retry schedule. */
async function throughEveryAttempt() {
  await run();
  for (const delay of RETRY_DELAYS_MS) {
    h.clock.advance(delay);
    await run();
  }
}

describe("delivery", () => {
  test("a signed JSON envelope with the documented headers; the event id is in both", async () => {
    const { accountId, auth } = await setUp();
    const hook = await createHook(auth);
    const t0 = h.clock.now();
    const key = await mintKeyEvent(auth);
    await run();

    expect(rx.received).toHaveLength(1); // key_created only: a webhook does not receive its own webhook_created
    const got = rx.received[0]!;
    expect(got.signatureValid).toBe(true);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["x-svc-event"]).toBe("key_created");
    expect(got.headers["x-svc-event-id"]).toMatch(/^evt_/);
    expect(got.headers["x-svc-delivery-attempt"]).toBe("1");
    expect(got.headers["user-agent"]).toStartWith("svc-webhooks/");
    expect(got.json).toEqual({
      id: got.headers["x-svc-event-id"],
      type: "key_created",
      created_at: new Date(t0).toISOString(),
      timestamp: Math.floor(t0 / 1000),
      account_id: accountId,
      data: expect.objectContaining({ key_id: key.id }),
    });
    expect(got.headers["x-svc-timestamp"]).toBe(String(got.json.timestamp));
    const outbox = h.ctx.outbox.since(0).find((e) => e.type === "key_created")!;
    expect(got.json.id).toBe(outbox.id);
    expect(got.json.data).toEqual(outbox.payload);
    expect(got.body).not.toContain(hook.secret);

    const [row] = await deliveries(auth, hook.id);
    expect(row).toEqual({
      event_id: outbox.id,
      event_type: "key_created",
      status: "delivered",
      response_status: 200,
      attempts: 1,
      delivered_at: new Date(t0).toISOString(),
      next_attempt_at: null,
      last_error: null,
      created_at: new Date(t0).toISOString(),
    });
  });

  test("the exact schedule: at once, +30 s, +5 min, +1 h; the same event id every time", async () => {
    const { auth } = await setUp();
    const hook = await createHook(auth);
    rx.script(500, 500, 500, 200);
    const t0 = h.clock.now();
    await mintKeyEvent(auth);
    await run();
    expect(rx.received).toHaveLength(1);

    let due = t0;
    for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
      due += delay;
      const [row] = await deliveries(auth, hook.id);
      expect(row).toMatchObject({ status: "pending", attempts: i + 1, response_status: 500, last_error: "HTTP 500", next_attempt_at: new Date(due).toISOString() });
      h.clock.set(due - 1);
      await run();
      expect(rx.received).toHaveLength(i + 1); // not a millisecond early
      h.clock.set(due);
      await run();
      expect(rx.received).toHaveLength(i + 2);
    }
    expect(rx.received.map((r) => r.headers["x-svc-delivery-attempt"])).toEqual(["1", "2", "3", "4"]);
    expect(new Set(rx.received.map((r) => r.json.id)).size).toBe(1);
    expect(new Set(rx.received.map((r) => r.headers["x-svc-event-id"])).size).toBe(1);
    expect(rx.received.every((r) => r.signatureValid)).toBe(true);
    // Each attempt is stamped with its own send time (covered by the signature).
    expect(rx.received.map((r) => r.json.timestamp)).toEqual([t0, t0 + 30 * SECOND, t0 + 30 * SECOND + 5 * MINUTE, t0 + 30 * SECOND + 5 * MINUTE + HOUR].map((t) => Math.floor(t / 1000)));
    const [row] = await deliveries(auth, hook.id);
    expect(row).toMatchObject({ status: "delivered", attempts: 4, response_status: 200, last_error: null, next_attempt_at: null, delivered_at: new Date(due).toISOString() });
  });

  test("at most four attempts; a 500, a timeout, a reset connection and a redirect each fail one", async () => {
    const { auth } = await setUp();
    const hook = await createHook(auth);
    rx.script(500, "hang", "reset", { redirect: rx.url("/elsewhere") });
    await mintKeyEvent(auth);
    const errors: (string | null)[] = [];
    await run();
    errors.push((await deliveries(auth, hook.id))[0].last_error);
    for (const delay of RETRY_DELAYS_MS) {
      h.clock.advance(delay);
      await run();
      errors.push((await deliveries(auth, hook.id))[0].last_error);
    }
    expect(errors).toEqual(["HTTP 500", "timed out after 1 s", "connection reset", "redirect (HTTP 302) not followed"]);
    expect(rx.received.map((r) => r.path)).toEqual(["/hook", "/hook", "/hook", "/hook"]); // the redirect was not followed
    const [row] = await deliveries(auth, hook.id);
    expect(row).toMatchObject({ status: "failed", attempts: 4, response_status: 302, next_attempt_at: null, delivered_at: null });
    h.clock.advance(DAY);
    await run();
    expect(rx.received).toHaveLength(4);
    expect((await hookView(auth, hook.id)).consecutive_failures).toBe(1);
  }, 15_000);

  test("nobody listening: connection refused is a failed attempt", async () => {
    const { auth } = await setUp();
    const hook = await createHook(auth, "/x", ["*"], `http://127.0.0.1:${await freePort()}/x`);
    await mintKeyEvent(auth);
    await run();
    expect((await deliveries(auth, hook.id))[0]).toMatchObject({ status: "pending", attempts: 1, response_status: null, last_error: "connection refused" });
  });

  test("5 consecutive events failing every attempt disable the webhook; a delivered event resets the count", async () => {
    const { accountId, auth } = await setUp();
    const hook = await createHook(auth, "/hook", ["key_created"]);
    const watcher = await createHook(auth, "/watch", ["webhook_revoked"]);
    rx.fallback = (r) => (r.path === "/hook" ? 500 : 200);
    for (let i = 0; i < 4; i++) await mintKeyEvent(auth);
    await throughEveryAttempt();
    expect(await hookView(auth, hook.id)).toMatchObject({ status: "active", consecutive_failures: 4, disabled_at: null });

    rx.script(200);
    await mintKeyEvent(auth);
    await run();
    expect(await hookView(auth, hook.id)).toMatchObject({ status: "active", consecutive_failures: 0 });

    for (let i = 0; i < 4; i++) await mintKeyEvent(auth);
    await throughEveryAttempt();
    expect(await hookView(auth, hook.id)).toMatchObject({ status: "active", consecutive_failures: 4 });
    const before = h.clock.now();
    await mintKeyEvent(auth);
    await throughEveryAttempt();
    const disabled = await hookView(auth, hook.id);
    expect(disabled).toMatchObject({ status: "disabled", consecutive_failures: 5 });
    expect(Date.parse(disabled.disabled_at)).toBeGreaterThan(before);

    // webhook_revoked fired (reason failing) and reached the account's other webhook.
    const revoked = h.ctx.outbox.since(0).filter((e) => e.type === "webhook_revoked");
    expect(revoked.map((e) => e.payload)).toEqual([{ webhook_id: hook.id, reason: "failing", consecutive_failures: 5 }]);
    expect(revoked[0]!.account_id).toBe(accountId);
    expect(rx.accepted().filter((r) => r.path === "/watch").map((r) => r.json.data.webhook_id)).toEqual([hook.id]);

    // Disabled: new events are not queued for it, its test route says why.
    const attemptsBefore = rx.received.filter((r) => r.path === "/hook").length;
    const rowsBefore = (await deliveries(auth, hook.id)).length;
    await mintKeyEvent(auth);
    await throughEveryAttempt();
    expect(rx.received.filter((r) => r.path === "/hook").length).toBe(attemptsBefore);
    expect((await deliveries(auth, hook.id)).length).toBe(rowsBefore);
    const refused = await h.json("POST", `/v1/webhooks/${hook.id}/test`, { headers: auth });
    expect(refused.status).toBe(409);
    expect(refused.body.error.type).toBe("webhook_disabled");
    expect(watcher.id).toBeDefined();
  });

  test("replay after an outage longer than the retries: every missed event arrives, with its original id", async () => {
    const { auth } = await setUp();
    const hook = await createHook(auth, "/hook", ["key_created"]);
    const since = h.clock.now();
    rx.fallback = 500;
    for (let i = 0; i < 6; i++) await mintKeyEvent(auth); // all fail for over an hour: the webhook is disabled
    await throughEveryAttempt();
    expect((await hookView(auth, hook.id)).status).toBe("disabled");
    for (let i = 0; i < 2; i++) await mintKeyEvent(auth); // while disabled: never queued
    await run();
    const attempted = new Set(rx.received.map((r) => r.json.id));

    rx.fallback = 200;
    const whileDisabled = await h.json("POST", `/v1/webhooks/${hook.id}/replay`, { headers: auth, body: { since: new Date(since).toISOString() } });
    expect(whileDisabled.status).toBe(409);
    expect(whileDisabled.body.error.type).toBe("webhook_disabled");
    const enabled = await h.json("POST", `/v1/webhooks/${hook.id}/enable`, { headers: auth });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ status: "active", disabled_at: null, consecutive_failures: 0 });

    const replay = await h.json("POST", `/v1/webhooks/${hook.id}/replay`, { headers: auth, body: { since: new Date(since).toISOString() } });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ webhook_id: hook.id, since: new Date(since).toISOString(), queued: 8, more: false });
    await run();

    const expected = h.ctx.outbox.since(0).filter((e) => e.type === "key_created").map((e) => e.id);
    expect(expected).toHaveLength(8);
    const delivered = rx.accepted().map((r) => r.json.id);
    expect(delivered.sort()).toEqual([...expected].sort());
    for (const id of attempted) expect(delivered).toContain(id); // retried under the same id
    expect(rx.accepted().every((r) => r.signatureValid && r.headers["x-svc-delivery-attempt"] === "1")).toBe(true);
    expect((await deliveries(auth, hook.id)).every((d) => d.status === "delivered")).toBe(true);

    // Nothing left to replay; delivered events are not sent again.
    const again = await h.json("POST", `/v1/webhooks/${hook.id}/replay`, { headers: auth, body: { since: new Date(since).toISOString() } });
    expect(again.body).toMatchObject({ queued: 0, more: false });
    await run();
    expect(rx.accepted()).toHaveLength(8);
  });

  test("replay leaves deliveries on their schedule alone, and takes over one whose attempt job is gone", async () => {
    const { auth } = await setUp();
    const hook = await createHook(auth);
    const since = new Date(h.clock.now()).toISOString();
    rx.script(500);
    await mintKeyEvent(auth);
    await run();
    const onSchedule = await h.json("POST", `/v1/webhooks/${hook.id}/replay`, { headers: auth, body: { since } });
    expect(onSchedule.body.queued).toBe(0);
    h.ctx.db.run("DELETE FROM jobs WHERE kind = 'webhooks.deliver'"); // its job failed for good and was pruned
    h.clock.advance(3 * HOUR);
    await run();
    expect(rx.received).toHaveLength(1);
    const takenOver = await h.json("POST", `/v1/webhooks/${hook.id}/replay`, { headers: auth, body: { since } });
    expect(takenOver.body.queued).toBe(1);
    await run();
    expect(rx.accepted()).toHaveLength(1);
    expect(rx.accepted()[0]!.json.id).toBe(rx.received[0]!.json.id);
    expect((await deliveries(auth, hook.id))[0]).toMatchObject({ status: "delivered", attempts: 1 });
  });

  test("replay refuses a since in the future, older than 30 days, or not a time", async () => {
    const { auth } = await setUp();
    const hook = await createHook(auth);
    for (const since of [new Date(h.clock.now() + MINUTE).toISOString(), new Date(h.clock.now() - 31 * DAY).toISOString(), "yesterday", 12]) {
      const r = await h.json("POST", `/v1/webhooks/${hook.id}/replay`, { headers: auth, body: { since } });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe("since");
    }
  });

  test("deliveries: a bare array, newest event first, at most 50", async () => {
    const { auth } = await setUp();
    const hook = await createHook(auth);
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) {
      ids.push(await testEvent(auth, hook.id));
      h.clock.advance(SECOND);
    }
    await run();
    expect(rx.accepted()).toHaveLength(55);
    const r = await h.json("GET", `/v1/webhooks/${hook.id}/deliveries`, { headers: auth });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body).toHaveLength(50);
    expect(r.body.map((d: any) => d.event_id)).toEqual(ids.slice(5).reverse());
    expect(Object.keys(r.body[0]).sort()).toEqual(["attempts", "created_at", "delivered_at", "event_id", "event_type", "last_error", "next_attempt_at", "response_status", "status"]);
    expect(r.body.every((d: any) => d.event_type === "webhook_test" && d.status === "delivered")).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain(hook.secret);
  });

  test("a test event goes through the outbox to that webhook only, whatever the filters", async () => {
    const { auth } = await setUp();
    const a = await createHook(auth, "/a", ["key_revoked"]);
    await createHook(auth, "/b", ["*"]);
    const eventId = await testEvent(auth, a.id);
    const row = h.ctx.outbox.since(0).find((e) => e.id === eventId)!;
    expect(row).toMatchObject({ type: "webhook_test", payload: { webhook_id: a.id } });
    await run();
    expect(rx.received.map((r) => [r.path, r.json.type, r.json.id])).toEqual([["/a", "webhook_test", eventId]]);
    expect(rx.received[0]!.signatureValid).toBe(true);
  });

  test("a subscription receives only the types it names", async () => {
    const { auth } = await setUp();
    await createHook(auth, "/revocations", ["key_revoked"]);
    const key = await mintKeyEvent(auth);
    expect((await h.json("DELETE", `/v1/keys/${key.id}`, { headers: auth })).status).toBe(200);
    await run();
    expect(rx.received.map((r) => r.json.type)).toEqual(["key_revoked"]);
    expect(rx.received[0]!.json.data.key_id).toBe(key.id);
  });

  test("the outbound guard runs at every attempt: a target that turned private is refused, then retried", async () => {
    const { auth } = await setUp();
    const hook = await createHook(auth);
    h.ctx.config.webhooks.allow_private = false; // as if its DNS now pointed at loopback
    await mintKeyEvent(auth);
    await run();
    expect(rx.received).toHaveLength(0);
    const [row] = await deliveries(auth, hook.id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, response_status: null });
    expect(row.last_error).toBe("refused: the URL is a loopback address");
    h.ctx.config.webhooks.allow_private = true;
    h.clock.advance(RETRY_DELAYS_MS[0]);
    await run();
    expect(rx.accepted()).toHaveLength(1);
  });

  test("events another process commits are found by the periodic sweep", async () => {
    const { accountId, auth } = await setUp();
    await createHook(auth);
    await run();
    const cli = openContext(h.ctx.config, { clock: h.clock, log: silentLogger }); // as `svc keys mint` would
    mintKey(cli, { accountId });
    cli.close();
    await run();
    expect(rx.received).toHaveLength(0); // this process's bus never heard of it
    h.clock.advance(5 * SECOND);
    await run();
    expect(rx.accepted().map((r) => r.json.type)).toEqual(["key_created"]);
  });

  test("events nobody subscribes to are only read; the durable cursor catches up at the sweep", async () => {
    const { auth } = await setUp();
    await createHook(auth, "/hook", ["balance_low"]);
    await run();
    const cursor = () => h.ctx.db.query<{ last_seq: number }, []>("SELECT last_seq FROM webhook_fanout").get()!.last_seq;
    const before = cursor();
    await mintKeyEvent(auth);
    const lastSeq = h.ctx.outbox.since(0).at(-1)!.seq;
    expect(lastSeq).toBeGreaterThan(before);
    expect(cursor()).toBe(before);
    h.clock.advance(5 * SECOND);
    await run();
    expect(cursor()).toBe(lastSeq);
    expect(rx.received).toHaveLength(0);
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries").get()!.n).toBe(0);
  });

  test("the outbox is read back after a commit only for accounts with a live webhook; one made by another process counts at once", async () => {
    const { auth } = await setUp();
    const other = accountWithSession(h.ctx);
    const otherAuth = bearer(other.session.token);
    const scan = spyOn(h.ctx.outbox, "scan");
    try {
      await mintKeyEvent(otherAuth); // no webhook anywhere: nothing to read back
      await mintKeyEvent(auth);
      expect(scan).toHaveBeenCalledTimes(0);
      await createHook(auth);
      scan.mockClear();
      await mintKeyEvent(otherAuth); // the other account still has none
      expect(scan).toHaveBeenCalledTimes(0);
      await mintKeyEvent(auth);
      expect(scan.mock.calls.length).toBeGreaterThan(0);
      await run();
      expect(rx.accepted().map((r) => r.json.type)).toEqual(["key_created"]);
      // A webhook another process makes (as the console's server beside a CLI would): seen at the next event, no restart.
      const cli = openContext(h.ctx.config, { clock: h.clock, log: silentLogger });
      const url = rx.url("/other");
      const made = await createWebhook(cli, { accountId: other.account.id, url, events: ["*"] });
      cli.close();
      rx.setSecret("/other", made.secret);
      scan.mockClear();
      await mintKeyEvent(otherAuth);
      expect(scan.mock.calls.length).toBeGreaterThan(0);
      await run();
      expect(rx.accepted().filter((r) => r.path === "/other").map((r) => r.json.type)).toEqual(["key_created"]);
      // Revoked: no longer read back for.
      await h.json("DELETE", `/v1/webhooks/${made.view.id}`, { headers: otherAuth });
      scan.mockClear();
      await mintKeyEvent(otherAuth);
      expect(scan).toHaveBeenCalledTimes(0);
    } finally {
      scan.mockRestore();
    }
  });

  test("a restart resumes the schedule: attempts are jobs in the database", async () => {
    const { auth } = await setUp();
    const hook = await createHook(auth);
    rx.script(500);
    await mintKeyEvent(auth);
    await run();
    expect(rx.received).toHaveLength(1);
    const dir = h.dir;
    h.close();
    h = makeHarness({ dir, clock: h.clock, config: (c) => (c.webhooks.allow_private = true) });
    registerWebhookJobs(h.ctx);
    h.clock.advance(30 * SECOND);
    await run();
    expect(rx.received).toHaveLength(2);
    expect(rx.received[1]!.json.id).toBe(rx.received[0]!.json.id);
    expect((await deliveries(auth, hook.id))[0]).toMatchObject({ status: "delivered", attempts: 2 });
  });

  test("delivery rows are pruned 30 days after their last change", async () => {
    const { accountId, auth } = await setUp();
    const hook = await createHook(auth);
    await mintKeyEvent(auth);
    await run();
    h.clock.advance(29 * DAY); // the session has long expired: the service is asked directly
    sendTestEvent(h.ctx, accountId, hook.id);
    await run();
    expect(listDeliveries(h.ctx, accountId, hook.id)).toHaveLength(2);
    h.clock.advance(DAY + HOUR);
    await run();
    expect(listDeliveries(h.ctx, accountId, hook.id).map((d) => d.event_type)).toEqual(["webhook_test"]);
  });
});
