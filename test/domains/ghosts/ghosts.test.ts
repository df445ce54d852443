/** /v1/ghost/sessions through HTTP: ephemeral keys, the countdown, expiry by the scheduler, extension within 24 h, destroy and purge. */
import { afterEach, describe, expect, test } from "bun:test";
import { createGhost, GHOST_EXPIRE_JOB } from "../../../src/domains/ghosts/service.ts";
import { registerJobs } from "../../../src/jobs.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const USD = 1_000_000;
const SEC = 1000;
const HOUR = 3_600_000;

function tenant() {
  const { account, session } = accountWithSession(h.ctx);
  return { accountId: account.id, auth: bearer(session.token) };
}

const at = (offsetMs: number) => new Date(h.clock.now() + offsetMs).toISOString();

async function spawn(auth: Record<string, string>, body: Record<string, unknown> = {}) {
  const r = await h.json("POST", "/v1/ghost/sessions", { headers: auth, body: { lifetime_secs: 3600, scopes: ["billing:read"], ...body } });
  if (r.status !== 201) throw new Error(`create failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const expiryJobs = () =>
  h.ctx.db.query<{ run_at: number; status: string }, [string]>("SELECT run_at, status FROM jobs WHERE kind = ? ORDER BY run_at").all(GHOST_EXPIRE_JOB);
const ghostRow = (id: string) => h.ctx.db.query<Record<string, unknown>, [string]>("SELECT * FROM ghost_sessions WHERE id = ?").get(id);
const credit = (key: string) => h.json("GET", "/v1/credit", { headers: bearer(key) });

describe("POST /v1/ghost/sessions", () => {
  test("returns the key once; the key works, expires with the ghost, and carries no name", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const g = await spawn(auth, { name: "scraper-7", budget_micro_usd: 2 * USD });
    expect(g.key).toMatch(/^sk-svc_/);
    expect(g.id).toMatch(/^gho_[a-z2-7]{24}$/);
    expect(g.key.startsWith(g.key_prefix)).toBe(true);
    expect(g).toMatchObject({
      name: "scraper-7",
      scopes: ["billing:read"],
      budget_micro_usd: 2 * USD,
      spent_micro_usd: 0,
      remaining_micro_usd: 2 * USD,
      created_at: at(0),
      expires_at: at(HOUR),
      max_expires_at: at(24 * HOUR),
      seconds_remaining: 3600,
      status: "live",
    });
    expect((await credit(g.key)).status).toBe(200);
    const keys = (await h.json("GET", "/v1/keys", { headers: auth })).body;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ id: g.key_id, kind: "ghost", name: null, total_cap_micro_usd: 2 * USD, expires_at: at(HOUR) });
    expect(expiryJobs()).toEqual([{ run_at: h.clock.now() + HOUR, status: "pending" }]);
    const got = await h.json("GET", `/v1/ghost/sessions/${g.id}`, { headers: auth });
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty("key");
    expect(got.body.id).toBe(g.id);
  });

  test("without a budget the key is capped only by the account's credit; with one, the meter refuses past it", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    h.ctx.ledger.credit(accountId, 10 * USD, { type: "deposit" });
    const open = await spawn(auth, { scopes: undefined });
    expect(open).toMatchObject({ scopes: ["*"], budget_micro_usd: null, remaining_micro_usd: null });
    const capped = await spawn(auth, { budget_micro_usd: 1000 });
    const r = h.ctx.meter.reserve({ accountId, keyId: capped.key_id, amount: 800, kind: "test", resource: "gpt-test", resourceType: "model" });
    h.ctx.meter.settle(r, 800);
    expect(() => h.ctx.meter.reserve({ accountId, keyId: capped.key_id, amount: 201, kind: "test", resource: "gpt-test", resourceType: "model" })).toThrow(
      expect.objectContaining({ status: 402, type: "spend_cap_reached" }),
    );
    const view = (await h.json("GET", `/v1/ghost/sessions/${capped.id}`, { headers: auth })).body;
    expect(view).toMatchObject({ spent_micro_usd: 800, remaining_micro_usd: 200 });
  });

  test("bad input answers 400 naming the field", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const cases: [Record<string, unknown>, string][] = [
      [{}, "lifetime_secs"],
      [{ lifetime_secs: 59 }, "lifetime_secs"],
      [{ lifetime_secs: 86_401 }, "lifetime_secs"],
      [{ lifetime_secs: "3600" }, "lifetime_secs"],
      [{ lifetime_secs: 60.5 }, "lifetime_secs"],
      [{ lifetime_secs: 60, budget_micro_usd: 0 }, "budget_micro_usd"],
      [{ lifetime_secs: 60, budget_micro_usd: "5" }, "budget_micro_usd"],
      [{ lifetime_secs: 60, scopes: ["everything"] }, "scopes"],
      [{ lifetime_secs: 60, name: "" }, "name"],
      [{ lifetime_secs: 60, expires_at: at(HOUR) }, "expires_at"],
    ];
    for (const [body, param] of cases) {
      const r = await h.json("POST", "/v1/ghost/sessions", { headers: auth, body });
      expect({ param, status: r.status, type: r.body.error?.type }).toEqual({ param, status: 400, type: "invalid_request" });
      expect(r.body.error.param).toBe(param);
    }
    expect((await h.json("GET", "/v1/ghost/sessions", { headers: auth })).body.sessions).toEqual([]);
    expect(expiryJobs()).toEqual([]);
  });

  test("session routes: an API key is refused with 401", async () => {
    h = makeHarness();
    const { accountId } = tenant();
    const key = apiKeyFor(h.ctx, accountId);
    const r = await h.json("POST", "/v1/ghost/sessions", { headers: bearer(key.token), body: { lifetime_secs: 60 } });
    expect(r.status).toBe(401);
    expect((await h.json("GET", "/v1/ghost/sessions")).status).toBe(401);
  });
});

describe("the lifetime", () => {
  test("seconds_remaining counts down with the clock", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const g = await spawn(auth, { lifetime_secs: 120 });
    h.clock.advance(45 * SEC);
    expect((await h.json("GET", `/v1/ghost/sessions/${g.id}`, { headers: auth })).body.seconds_remaining).toBe(75);
    h.clock.advance(74_500);
    expect((await h.json("GET", "/v1/ghost/sessions", { headers: auth })).body.sessions[0].seconds_remaining).toBe(0);
  });

  test("the scheduler destroys it at expiry: the key answers 401, the ghost 404, its metadata is gone", async () => {
    h = makeHarness();
    registerJobs(h.ctx);
    const { auth } = tenant();
    const g = await spawn(auth, { lifetime_secs: 600, name: "short-lived" });
    h.clock.advance(599 * SEC);
    await h.ctx.scheduler.runDue();
    expect((await h.json("GET", `/v1/ghost/sessions/${g.id}`, { headers: auth })).status).toBe(200);
    expect(h.ctx.outbox.since(0).filter((e) => e.type === "key_revoked")).toEqual([]);

    h.clock.advance(SEC);
    // Past expiry, before the job runs: already gone for reads, and the key is already refused.
    expect((await h.json("GET", `/v1/ghost/sessions/${g.id}`, { headers: auth })).status).toBe(404);
    expect((await credit(g.key)).body.error.type).toBe("api_key_expired");
    await h.ctx.scheduler.runDue();

    const after = await credit(g.key);
    expect(after.status).toBe(401);
    expect(after.body.error.type).toBe("api_key_revoked");
    expect((await h.json("GET", `/v1/ghost/sessions/${g.id}`, { headers: auth })).status).toBe(404);
    expect((await h.json("GET", "/v1/ghost/sessions", { headers: auth })).body.sessions).toEqual([]);
    expect(ghostRow(g.id)).toMatchObject({ name: null, scopes: null, budget_micro_usd: null, expires_at: null, destroyed_at: h.clock.now(), destroy_reason: "expired" });
    expect(h.ctx.outbox.since(0).filter((e) => e.type === "key_revoked").map((e) => [e.payload.key_id, e.payload.reason])).toEqual([[g.key_id, "ghost_expired"]]);
    expect(expiryJobs()).toEqual([]);
    // A repeated destroy after expiry still answers the tombstone.
    const destroy = await h.json("POST", `/v1/ghost/sessions/${g.id}/destroy`, { headers: auth });
    expect(destroy.body).toMatchObject({ id: g.id, destroyed: true, reason: "expired" });
  });
});

describe("POST /v1/ghost/sessions/:id/extend", () => {
  test("moves the expiry of the ghost and its key, and the expiry job with them", async () => {
    h = makeHarness();
    registerJobs(h.ctx);
    const { auth } = tenant();
    const g = await spawn(auth, { lifetime_secs: 3600 });
    const start = h.clock.now();
    h.clock.advance(30 * 60 * SEC);
    const r = await h.json("POST", `/v1/ghost/sessions/${g.id}/extend`, { headers: auth, body: { extend_secs: 7200 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: g.id, expires_at: new Date(start + 3 * HOUR).toISOString(), seconds_remaining: 9000 });
    expect(expiryJobs()).toEqual([{ run_at: start + 3 * HOUR, status: "pending" }]);
    const key = (await h.json("GET", "/v1/keys", { headers: auth })).body[0];
    expect(key.expires_at).toBe(new Date(start + 3 * HOUR).toISOString());

    // Past the old expiry the ghost and its key live on.
    h.clock.set(start + HOUR + SEC);
    await h.ctx.scheduler.runDue();
    expect((await credit(g.key)).status).toBe(200);
    expect((await h.json("GET", `/v1/ghost/sessions/${g.id}`, { headers: auth })).status).toBe(200);
    // At the new one the job destroys it.
    h.clock.set(start + 3 * HOUR);
    await h.ctx.scheduler.runDue();
    expect((await credit(g.key)).body.error.type).toBe("api_key_revoked");
    expect((await h.json("GET", `/v1/ghost/sessions/${g.id}`, { headers: auth })).status).toBe(404);
  });

  test("up to exactly 24 hours from creation; beyond is 409 ghost_lifetime_exceeded and changes nothing", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const g = await spawn(auth, { lifetime_secs: 86_400 - 100 });
    const start = h.clock.now();
    h.clock.advance(HOUR);
    const over = await h.json("POST", `/v1/ghost/sessions/${g.id}/extend`, { headers: auth, body: { extend_secs: 101 } });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ type: "ghost_lifetime_exceeded", max_lifetime_secs: 86_400, max_extend_secs: 100, max_expires_at: new Date(start + 24 * HOUR).toISOString() });
    expect((await h.json("GET", `/v1/ghost/sessions/${g.id}`, { headers: auth })).body.expires_at).toBe(g.expires_at);
    expect(expiryJobs()).toEqual([{ run_at: start + 24 * HOUR - 100 * SEC, status: "pending" }]);
    expect((await h.json("GET", "/v1/keys", { headers: auth })).body[0].expires_at).toBe(g.expires_at);

    const exact = await h.json("POST", `/v1/ghost/sessions/${g.id}/extend`, { headers: auth, body: { extend_secs: 100 } });
    expect(exact.status).toBe(200);
    expect(exact.body.expires_at).toBe(new Date(start + 24 * HOUR).toISOString());
    expect((await h.json("POST", `/v1/ghost/sessions/${g.id}/extend`, { headers: auth, body: { extend_secs: 1 } })).status).toBe(409);
  });

  test("bad input 400; unknown, another account's and expired ghosts 404", async () => {
    h = makeHarness();
    const a = tenant();
    const b = tenant();
    const g = await spawn(a.auth, { lifetime_secs: 60 });
    for (const body of [{}, { extend_secs: 0 }, { extend_secs: "60" }, { extend_secs: 60, lifetime_secs: 60 }]) {
      const r = await h.json("POST", `/v1/ghost/sessions/${g.id}/extend`, { headers: a.auth, body });
      expect(r.status).toBe(400);
      expect(["extend_secs", "lifetime_secs"]).toContain(r.body.error.param);
    }
    expect((await h.json("POST", `/v1/ghost/sessions/${g.id}/extend`, { headers: b.auth, body: { extend_secs: 60 } })).status).toBe(404);
    expect((await h.json("POST", "/v1/ghost/sessions/gho_unknown/extend", { headers: a.auth, body: { extend_secs: 60 } })).status).toBe(404);
    h.clock.advance(60 * SEC);
    // Expired (the job has not run): too late to extend.
    expect((await h.json("POST", `/v1/ghost/sessions/${g.id}/extend`, { headers: a.auth, body: { extend_secs: 60 } })).status).toBe(404);
  });
});

describe("POST /v1/ghost/sessions/:id/destroy", () => {
  test("revokes the key, purges the metadata, cancels the job; idempotent, and the id then answers 404", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const g = await spawn(auth, { name: "temp", budget_micro_usd: USD });
    h.clock.advance(10 * SEC);
    const r = await h.json("POST", `/v1/ghost/sessions/${g.id}/destroy`, { headers: auth });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: g.id, destroyed: true, destroyed_at: at(0), reason: "destroyed" });
    const refused = await credit(g.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.type).toBe("api_key_revoked");
    expect(ghostRow(g.id)).toEqual({
      id: g.id,
      account_id: expect.any(String),
      key_id: g.key_id,
      name: null,
      scopes: null,
      budget_micro_usd: null,
      created_at: h.clock.now() - 10 * SEC,
      expires_at: null,
      destroyed_at: h.clock.now(),
      destroy_reason: "destroyed",
    });
    expect(expiryJobs()).toEqual([]);
    for (const [method, path] of [["GET", `/v1/ghost/sessions/${g.id}`], ["POST", `/v1/ghost/sessions/${g.id}/extend`]] as const) {
      const gone = await h.json(method, path, { headers: auth, body: method === "POST" ? { extend_secs: 60 } : undefined });
      expect(gone.status).toBe(404);
    }
    expect((await h.json("GET", "/v1/ghost/sessions", { headers: auth })).body.sessions).toEqual([]);
    h.clock.advance(SEC);
    const again = await h.json("POST", `/v1/ghost/sessions/${g.id}/destroy`, { headers: auth });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(r.body);
    expect(h.ctx.outbox.since(0).filter((e) => e.type === "key_revoked").map((e) => [e.payload.key_id, e.payload.reason])).toEqual([[g.key_id, "ghost_destroyed"]]);
    // The key row stays for the usage history: revoked, kind ghost, no name.
    const keys = (await h.json("GET", "/v1/keys?include_revoked=true", { headers: auth })).body;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ id: g.key_id, kind: "ghost", name: null, status: "revoked" });
  });

  test("another account's ghost and unknown ids answer 404 and nothing changes", async () => {
    h = makeHarness();
    const a = tenant();
    const b = tenant();
    const g = await spawn(a.auth);
    for (const path of [`/v1/ghost/sessions/${g.id}`, "/v1/ghost/sessions/gho_nope"]) {
      expect((await h.json("GET", path, { headers: b.auth })).status).toBe(404);
      const r = await h.json("POST", `${path}/destroy`, { headers: b.auth });
      expect(r.status).toBe(404);
      expect(r.body.error.type).toBe("not_found");
    }
    expect((await credit(g.key)).status).toBe(200);
    expect((await h.json("GET", "/v1/ghost/sessions", { headers: b.auth })).body.sessions).toEqual([]);
  });
});

describe("GET /v1/ghost/sessions", () => {
  test("named-key envelope {sessions}, newest first, live ones only, secrets never shown", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const first = await spawn(auth);
    h.clock.advance(SEC);
    const second = await spawn(auth);
    h.clock.advance(SEC);
    const third = await spawn(auth);
    await h.json("POST", `/v1/ghost/sessions/${second.id}/destroy`, { headers: auth });
    const r = await h.json("GET", "/v1/ghost/sessions", { headers: auth });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(["sessions"]);
    expect(r.body.sessions.map((s: { id: string }) => s.id)).toEqual([third.id, first.id]);
    expect(JSON.stringify(r.body)).not.toContain(first.key);
  });

  test("at most 100, the newest", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    const ids: string[] = [];
    for (let i = 0; i < 101; i++) {
      h.clock.advance(1);
      ids.push(createGhost(h.ctx, accountId, { name: null, scopes: ["*"], budget: null, lifetimeSecs: 3600 }).ghost.id);
    }
    const listed = (await h.json("GET", "/v1/ghost/sessions", { headers: auth })).body.sessions;
    expect(listed).toHaveLength(100);
    expect(listed[0].id).toBe(ids[100]);
    expect(listed.map((s: { id: string }) => s.id)).not.toContain(ids[0]);
  });
});
