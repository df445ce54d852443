/**
 * /v1/nodes and /v1/admin/nodes through HTTP: enrolment (key shown once, stored hashed),
 * approval, heartbeats (node class), the public registry, gates (only the account a node was
 * enrolled for; everyone else 404), dispatch rules through the sandboxes seam, and the sweep
 * that marks a silent node unreachable when the clock passes its missed heartbeats.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { sha256Hex } from "../../../src/core/secrets.ts";
import { nodeBackends, onNodeLost } from "../../../src/domains/sandboxes/index.ts";
import { registerJobs } from "../../../src/jobs.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { ADMIN_TOKEN, bearer, type Harness, makeHarness, METRICS_TOKEN } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const admin = bearer(ADMIN_TOKEN);
const SECRET = "nd-svc_" + "s".repeat(43);

async function enroll(body: Record<string, unknown> = { name: "edge" }) {
  const r = await h.json("POST", "/v1/admin/nodes/enroll", { body, headers: admin });
  expect(r.status).toBe(201);
  return r.body as { node_id: string; node_key: string; kinds: string[]; account_id: string | null };
}

const beat = (key: string, extra: Record<string, unknown> = {}) =>
  h.json("POST", "/v1/nodes/heartbeat", {
    headers: bearer(key),
    body: {
      endpoint: "http://10.0.0.7:8091",
      version: "0.1.0",
      dispatch_secret: SECRET,
      languages: ["python", "bash"],
      capacity: 4,
      sandbox: { available: true },
      bench_ms: 20,
      ...extra,
    },
  });

const registry = async () => (await h.json("GET", "/v1/nodes")).body as any[];
const entry = async (id: string) => (await registry()).find((n) => n.id === id);

describe("POST /v1/admin/nodes/enroll", () => {
  test("answers the node key once; only its sha256 is stored", async () => {
    h = makeHarness({ admin: true });
    const { account } = accountWithSession(h.ctx);
    const r = await h.json("POST", "/v1/admin/nodes/enroll", { body: { name: "edge-1", kinds: ["sandbox", "gpu"], account_id: account.id }, headers: admin });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: "edge-1", kinds: ["sandbox", "gpu"], account_id: account.id, status: "pending" });
    expect(r.body.node_id).toMatch(/^node_[a-z2-7]{24}$/);
    expect(r.body.node_key).toMatch(/^nk-svc_[A-Za-z0-9_-]{43}$/);
    const row = h.ctx.db.query<Record<string, unknown>, [string]>("SELECT * FROM nodes WHERE id = ?").get(r.body.node_id)!;
    expect(row.key_sha256).toBe(sha256Hex(r.body.node_key));
    expect(JSON.stringify(row)).not.toContain(r.body.node_key);
    expect(row.key_prefix).toBe(r.body.node_key.slice(0, 13));
    // Nowhere to be read again: not in the registry, not in the approve answer.
    expect(JSON.stringify(await registry())).not.toContain(r.body.node_key);
    const approved = await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id: r.body.node_id, approved: true }, headers: admin });
    expect(JSON.stringify(approved.body)).not.toContain(r.body.node_key.slice(13));
    expect(h.ctx.audit.recent().map((a) => a.action)).toEqual(["node.approve", "node.enroll"]);
  });

  test("kinds default to sandbox; bad input answers 400 naming the field; an unknown account 404", async () => {
    h = makeHarness({ admin: true });
    expect((await enroll({ name: "plain" })).kinds).toEqual(["sandbox"]);
    for (const [body, param] of [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "x".repeat(101) }, "name"],
      [{ name: "x", kinds: ["Bad Kind"] }, "kinds.0"],
      [{ name: "x", kinds: "sandbox" }, "kinds"],
      [{ name: "x", sneaky: 1 }, "sneaky"],
    ] as const) {
      const r = await h.json("POST", "/v1/admin/nodes/enroll", { body, headers: admin });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    const blank = await h.json("POST", "/v1/admin/nodes/enroll", { body: { name: "   " }, headers: admin });
    expect(blank.status).toBe(400);
    const unknown = await h.json("POST", "/v1/admin/nodes/enroll", { body: { name: "x", account_id: "acct_nope" }, headers: admin });
    expect(unknown.status).toBe(404);
  });

  test("the admin node routes are unmounted without an admin token and refuse a wrong one", async () => {
    h = makeHarness();
    expect((await h.json("POST", "/v1/admin/nodes/enroll", { body: { name: "x" }, headers: bearer("anything") })).status).toBe(404);
    h.close();
    h = makeHarness({ admin: true, metrics: true });
    for (const path of ["/v1/admin/nodes/enroll", "/v1/admin/nodes/approve"]) {
      for (const headers of [{}, bearer("wrong"), bearer(METRICS_TOKEN)]) {
        expect((await h.json("POST", path, { body: { bogus: true }, headers })).status).toBe(401);
      }
    }
  });
});

describe("POST /v1/admin/nodes/approve", () => {
  test("approves and withdraws approval; unknown node 404; bad body 400", async () => {
    h = makeHarness({ admin: true });
    const { node_id } = await enroll();
    const on = await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id, approved: true }, headers: admin });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ id: node_id, approved: true, status: "pending", endpoint: null });
    expect(on.body.approved_at).toBe(new Date(h.clock.now()).toISOString());
    const off = await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id, approved: false }, headers: admin });
    expect(off.body).toMatchObject({ approved: false, approved_at: null });
    expect((await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id: "node_nope", approved: true }, headers: admin })).status).toBe(404);
    const bad = await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id, approved: "yes" }, headers: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("approved");
  });
});

describe("POST /v1/nodes/heartbeat", () => {
  test("a node's key records where it is and what it runs; the answer tells it the interval", async () => {
    h = makeHarness({ admin: true });
    const { node_id, node_key } = await enroll();
    const r = await beat(node_key, { unknown_future_field: { x: 1 } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ node_id, status: "pending", approved: false, heartbeat_secs: 60, missed_heartbeats: 2 });
    // The dispatch secret is sealed at rest, bound to the node.
    const row = h.ctx.db.query<{ dispatch_secret_sealed: string; endpoint: string }, [string]>("SELECT dispatch_secret_sealed, endpoint FROM nodes WHERE id = ?").get(node_id)!;
    expect(row.dispatch_secret_sealed).toStartWith("v1.");
    expect(row.dispatch_secret_sealed).not.toContain(SECRET);
    expect(h.ctx.sealer.openText(row.dispatch_secret_sealed, `nodes.dispatch_secret:${node_id}`)).toBe(SECRET);
    expect(row.endpoint).toBe("http://10.0.0.7:8091");
  });

  test("credentials: missing 401, another class 401, an unknown node key 401 invalid_node_key", async () => {
    h = makeHarness({ admin: true });
    const { account, session } = accountWithSession(h.ctx);
    const key = apiKeyFor(h.ctx, account.id);
    const body = { endpoint: "http://x:1", version: "1", dispatch_secret: SECRET, languages: [], capacity: 1 };
    const none = await h.json("POST", "/v1/nodes/heartbeat", { body });
    expect(none.status).toBe(401);
    expect(none.body.error.type).toBe("missing_credentials");
    for (const token of [key.token, session.token]) {
      const r = await h.json("POST", "/v1/nodes/heartbeat", { body, headers: bearer(token) });
      expect(r.status).toBe(401);
      expect(r.body.error.type).toBe("wrong_credential_class");
    }
    const forged = await h.json("POST", "/v1/nodes/heartbeat", { body, headers: bearer("nk-svc_" + "A".repeat(43)) });
    expect(forged.status).toBe(401);
    expect(forged.body.error.type).toBe("invalid_node_key");
    // Checked before the body: an unauthenticated caller learns nothing of the schema.
    expect((await h.json("POST", "/v1/nodes/heartbeat", { body: { bogus: 1 } })).status).toBe(401);
  });

  test("bad input answers 400 naming the field", async () => {
    h = makeHarness({ admin: true });
    const { node_key } = await enroll();
    for (const [extra, param] of [
      [{ endpoint: "ftp://10.0.0.7" }, "endpoint"],
      [{ endpoint: "http://user:pw@10.0.0.7:1" }, "endpoint"],
      [{ endpoint: "http://10.0.0.7:1/?q=1" }, "endpoint"],
      [{ endpoint: "not a url" }, "endpoint"],
      [{ dispatch_secret: "short" }, "dispatch_secret"],
      [{ capacity: -1 }, "capacity"],
      [{ capacity: "4" }, "capacity"],
      [{ languages: "python" }, "languages"],
      [{ bench_ms: 0 }, "bench_ms"],
    ] as const) {
      const r = await beat(node_key, extra);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    const missing = await h.json("POST", "/v1/nodes/heartbeat", { headers: bearer(node_key), body: { endpoint: "http://x:1" } });
    expect(missing.status).toBe(400);
  });

  test("speed_factor is the gateway's time over the node's; a claim out of range is clamped and counted", async () => {
    h = makeHarness({ admin: true });
    const { node_id, node_key } = await enroll();
    await beat(node_key, { bench_ms: 0.0001 });
    expect(await entry(node_id)).toMatchObject({ speed_factor: 10, clamp_count: 1 });
    await beat(node_key, { bench_ms: 1_000_000 });
    expect(await entry(node_id)).toMatchObject({ speed_factor: 0.1, clamp_count: 2 });
  });
});

describe("GET /v1/nodes", () => {
  test("a bare array: the gateway first, then nodes with their status; never an endpoint, key or secret", async () => {
    h = makeHarness({ admin: true });
    const list0 = await registry();
    expect(list0).toHaveLength(1);
    expect(list0[0]).toMatchObject({ id: "gateway", kinds: ["gateway"], status: "live", version: h.ctx.version, speed_factor: 1 });

    const a = await enroll({ name: "a" });
    const b = await enroll({ name: "b" });
    let list = await registry();
    expect(list.map((n) => n.id)).toEqual(["gateway", a.node_id, b.node_id]);
    expect(list[1]).toMatchObject({ status: "pending", approved: false, reachable: false, last_heartbeat_at: null, capacity: null, reliability: null, latency_ms: null });

    await beat(a.node_key);
    await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id: a.node_id, approved: true }, headers: admin });
    list = await registry();
    expect(list[1]).toMatchObject({
      id: a.node_id,
      name: "a",
      kinds: ["sandbox"],
      status: "live",
      approved: true,
      reachable: true,
      languages: ["python", "bash"],
      capacity: 4,
      in_flight: 0,
      sandbox_available: true,
      calls: { succeeded: 0, failed: 0 },
      last_heartbeat_at: new Date(h.clock.now()).toISOString(),
    });
    const text = JSON.stringify(list);
    for (const hidden of ["10.0.0.7", SECRET, a.node_key, "key_prefix", "endpoint", "account_id"]) expect(text).not.toContain(hidden);

    // A node that cannot run sandboxes says so, lists no languages, and is never picked.
    await beat(b.node_key, { sandbox: { available: false, reason: "bubblewrap not found" } });
    await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id: b.node_id, approved: true }, headers: admin });
    expect(await entry(b.node_id)).toMatchObject({ status: "live", sandbox_available: false, languages: [] });
    // A node that offers only some of its enrolled kinds serves those.
    await beat(a.node_key, { kinds: ["other"] });
    expect((await entry(a.node_id)).kinds).toEqual([]);
  });
});

describe("POST /v1/nodes/:id/:gate", () => {
  test("the account a node was enrolled for drains and disables it; everyone else gets 404", async () => {
    h = makeHarness({ admin: true });
    const owner = accountWithSession(h.ctx);
    const other = accountWithSession(h.ctx);
    const mine = await enroll({ name: "mine", account_id: owner.account.id });
    const operators = await enroll({ name: "operators" });
    await beat(mine.node_key);
    await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id: mine.node_id, approved: true }, headers: admin });
    const as = (s: { token: string }) => bearer(s.token);

    const drain = await h.json("POST", `/v1/nodes/${mine.node_id}/draining`, { body: { set: true }, headers: as(owner.session) });
    expect(drain.status).toBe(200);
    expect(drain.body).toMatchObject({ id: mine.node_id, draining: true, status: "draining" });
    expect(drain.body.endpoint).toBeUndefined();
    expect((await h.json("POST", `/v1/nodes/${mine.node_id}/draining`, { body: { set: false }, headers: as(owner.session) })).body.status).toBe("live");
    const disable = await h.json("POST", `/v1/nodes/${mine.node_id}/disabled`, { body: { set: true }, headers: as(owner.session) });
    expect(disable.body).toMatchObject({ disabled: true, status: "disabled" });
    expect((await h.json("POST", `/v1/nodes/${mine.node_id}/disabled`, { body: { set: false }, headers: as(owner.session) })).body.status).toBe("live");

    // Another account's node, the operator's own node and unknown ids: the same 404.
    for (const [id, session] of [
      [mine.node_id, other.session],
      [operators.node_id, owner.session],
      ["node_nope", owner.session],
    ] as const) {
      const r = await h.json("POST", `/v1/nodes/${id}/disabled`, { body: { set: true }, headers: as(session) });
      expect(r.status).toBe(404);
      expect(r.body.error.type).toBe("not_found");
    }
    expect((await entry(mine.node_id)).disabled).toBe(false);
  });

  test("bad gate or body 400; no credential 401; an API key 401 (session class)", async () => {
    h = makeHarness({ admin: true });
    const owner = accountWithSession(h.ctx);
    const { node_id } = await enroll({ name: "mine", account_id: owner.account.id });
    const headers = bearer(owner.session.token);
    const gate = await h.json("POST", `/v1/nodes/${node_id}/exploded`, { body: { set: true }, headers });
    expect(gate.status).toBe(400);
    expect(gate.body.error.param).toBe("params.gate");
    for (const body of [{}, { set: "true" }, { set: true, more: 1 }]) expect((await h.json("POST", `/v1/nodes/${node_id}/draining`, { body, headers })).status).toBe(400);
    expect((await h.json("POST", `/v1/nodes/${node_id}/draining`, { body: { set: true } })).status).toBe(401);
    const key = apiKeyFor(h.ctx, owner.account.id);
    const wrong = await h.json("POST", `/v1/nodes/${node_id}/draining`, { body: { set: true }, headers: bearer(key.token) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.type).toBe("wrong_credential_class");
  });
});

describe("dispatch through the sandboxes seam", () => {
  test("pick takes only approved, live, ungated nodes that run the language and have room", async () => {
    h = makeHarness({ admin: true });
    const seam = nodeBackends(h.ctx)!;
    const owner = accountWithSession(h.ctx);
    const { node_id, node_key } = await enroll({ name: "n", account_id: owner.account.id });
    expect(seam.pick({ language: "python" })).toBeNull(); // never heard from
    await beat(node_key);
    expect(seam.pick({ language: "python" })).toBeNull(); // not approved
    expect(seam.get(node_id)).toBeNull();
    await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id, approved: true }, headers: admin });
    expect(seam.pick({ language: "python" })?.nodeId).toBe(node_id);
    expect(seam.pick({})?.nodeId).toBe(node_id);
    expect(seam.pick({ language: "javascript" })).toBeNull(); // it does not run that
    expect(seam.get(node_id)?.nodeId).toBe(node_id);

    const gate = (g: string, set: boolean) => h.json("POST", `/v1/nodes/${node_id}/${g}`, { body: { set }, headers: bearer(owner.session.token) });
    await gate("draining", true);
    expect(seam.pick({ language: "python" })).toBeNull();
    expect(seam.get(node_id)?.nodeId).toBe(node_id); // a draining node keeps serving its sessions
    await gate("draining", false);
    await gate("disabled", true);
    expect(seam.pick({ language: "python" })).toBeNull();
    expect(seam.get(node_id)).toBeNull();
    await gate("disabled", false);

    await beat(node_key, { capacity: 0 });
    expect(seam.pick({ language: "python" })).toBeNull(); // no room
    await beat(node_key, { sandbox: { available: false, reason: "no bwrap" } });
    expect(seam.pick({ language: "python" })).toBeNull();
    await beat(node_key, { kinds: ["inference"] });
    expect(seam.pick({ language: "python" })).toBeNull(); // it does not offer sandboxes
    await beat(node_key);
    expect(seam.pick({ language: "python" })?.nodeId).toBe(node_id);

    // Heard from too long ago: not picked even before the sweep has run.
    h.clock.advance(121_000);
    expect(seam.pick({ language: "python" })).toBeNull();
  });

  test("withdrawing approval or disabling a node reports it lost (its sessions stop)", async () => {
    h = makeHarness({ admin: true });
    const lost: string[] = [];
    onNodeLost(h.ctx, (id) => lost.push(id));
    const { node_id, node_key } = await enroll();
    await beat(node_key);
    await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id, approved: true }, headers: admin });
    await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id, approved: false }, headers: admin });
    expect(lost).toEqual([node_id]);
    await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id, approved: false }, headers: admin });
    expect(lost).toEqual([node_id]); // already unapproved: nothing more to stop
  });
});

describe("missed heartbeats", () => {
  test("two missed heartbeats mark a node unreachable (the sweep job) and report it lost once; a heartbeat brings it back", async () => {
    h = makeHarness({ admin: true });
    registerJobs(h.ctx);
    const lost: string[] = [];
    onNodeLost(h.ctx, (id) => lost.push(id));
    const { node_id, node_key } = await enroll();
    const pending = await enroll({ name: "never-approved" });
    await beat(node_key);
    await beat(pending.node_key);
    await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id, approved: true }, headers: admin });
    await h.ctx.scheduler.runDue();

    h.clock.advance(61_000); // one heartbeat missed: still live
    await h.ctx.scheduler.runDue();
    expect((await entry(node_id)).status).toBe("live");
    expect(lost).toEqual([]);

    h.clock.advance(60_000); // two missed
    await h.ctx.scheduler.runDue();
    expect(await entry(node_id)).toMatchObject({ status: "unreachable", reachable: false });
    expect(lost).toEqual([node_id]); // the unapproved node had nothing to stop
    expect(await entry(pending.node_id)).toMatchObject({ status: "pending", reachable: false });
    h.clock.advance(120_000);
    await h.ctx.scheduler.runDue();
    expect(lost).toEqual([node_id]);

    const back = await beat(node_key);
    expect(back.body.status).toBe("live");
    expect(await entry(node_id)).toMatchObject({ status: "live", reachable: true });
  });

  test("nodes.missed_heartbeats and nodes.heartbeat_secs set the deadline", async () => {
    h = makeHarness({ admin: true, config: (c) => ((c.nodes.missed_heartbeats = 3), (c.nodes.heartbeat_secs = 10)) });
    registerJobs(h.ctx);
    const { node_id, node_key } = await enroll();
    expect((await beat(node_key)).body).toMatchObject({ heartbeat_secs: 10, missed_heartbeats: 3 });
    await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id, approved: true }, headers: admin });
    h.clock.advance(29_000);
    await h.ctx.scheduler.runDue();
    expect((await entry(node_id)).status).toBe("live");
    h.clock.advance(2_000);
    await h.ctx.scheduler.runDue();
    expect((await entry(node_id)).status).toBe("unreachable");
  });
});
