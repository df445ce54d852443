/** /v1/keys and /v1/credit through HTTP: minting, scopes, delegation bounds, revocation cascade, rotation, freezing. */
import { afterEach, describe, expect, test } from "bun:test";
import { mintKey } from "../../../src/domains/keys/service.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const USD = 1_000_000;

async function mint(token: string, body: Record<string, unknown> = {}) {
  const r = await h.json("POST", "/v1/keys", { headers: bearer(token), body });
  if (r.status !== 201) throw new Error(`mint failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { id: string; key: string; prefix: string; scopes: string[]; status: string; parent_id: string | null };
}

async function delegate(key: string, body: Record<string, unknown> = {}) {
  return h.json("POST", "/v1/keys/delegate", { headers: bearer(key), body });
}

describe("POST /v1/keys and GET /v1/keys", () => {
  test("the secret is returned once; the list shows prefixes, metadata and spend, never secrets", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const made = await mint(session.token, { name: "agent-1", scopes: ["inference", "billing:read"], monthly_cap_micro_usd: 5 * USD, expires_in_secs: 3600 });
    expect(made.key).toMatch(/^sk-svc_/);
    expect(made.key.startsWith(made.prefix)).toBe(true);
    expect(made).toMatchObject({ name: "agent-1", scopes: ["billing:read", "inference"], monthly_cap_micro_usd: 5 * USD, status: "active", kind: "standard", spent_this_month_micro_usd: 0 });
    const list = await h.json("GET", "/v1/keys", { headers: bearer(session.token) });
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.length).toBe(1);
    expect(list.body[0].id).toBe(made.id);
    expect(JSON.stringify(list.body)).not.toContain(made.key);
    expect(list.body[0]).not.toHaveProperty("key");
    const events = h.ctx.outbox.since(0).filter((e) => e.type === "key_created");
    expect(events.map((e) => e.payload.key_id)).toEqual([made.id]);
  });

  test("bad input names the field", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const auth = bearer(session.token);
    const cases: [Record<string, unknown>, string][] = [
      [{ scopes: ["teleport"] }, "scopes"],
      [{ scopes: ["*", "inference"] }, "scopes"],
      [{ monthly_cap_micro_usd: "5" }, "monthly_cap_micro_usd"],
      [{ monthly_cap_micro_usd: 1.5 }, "monthly_cap_micro_usd"],
      [{ expires_at: "2020-01-01T00:00:00Z" }, "expires_at"],
      [{ expires_at: "2030-01-01T00:00:00Z", expires_in_secs: 600 }, "expires_at"],
      [{ colour: "red" }, "colour"],
    ];
    for (const [body, param] of cases) {
      const r = await h.json("POST", "/v1/keys", { headers: auth, body });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
  });
});

describe("scopes", () => {
  test("a key without the scope a route needs gets 403 naming it", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const narrow = await mint(session.token, { scopes: ["inference"] });
    const r = await h.json("GET", "/v1/credit", { headers: bearer(narrow.key) });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: "missing_scope", scope: "billing:read" });
    const wide = await mint(session.token);
    const ok = await h.json("GET", "/v1/credit", { headers: bearer(wide.key) });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ balance_micro_usd: 0, held_micro_usd: 0, spendable_micro_usd: 0, key: { id: wide.id, monthly_cap_micro_usd: null } });
  });
});

describe("validity window", () => {
  test("a key is not a credential before its not-before time", async () => {
    h = makeHarness();
    const { account } = accountWithSession(h.ctx);
    const minted = mintKey(h.ctx, { accountId: account.id, notBefore: h.clock.now() + 60_000 });
    const early = await h.json("GET", "/v1/credit", { headers: bearer(minted.key) });
    expect(early.status).toBe(401);
    expect(early.body.error.type).toBe("api_key_not_yet_valid");
    h.clock.advance(60_000);
    expect((await h.json("GET", "/v1/credit", { headers: bearer(minted.key) })).status).toBe(200);
  });
});

describe("delegation", () => {
  test("a child is bounded by its parent: scopes, cap left this month, expiry, depth; it needs keys:delegate", async () => {
    h = makeHarness({ config: (c) => (c.keys.max_delegation_depth = 2) });
    const { account, session } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 100 * USD);
    const parent = await mint(session.token, { scopes: ["inference", "keys:delegate", "billing:read"], monthly_cap_micro_usd: 10 * USD, expires_in_secs: 7200 });
    h.ctx.meter.settle(h.ctx.meter.reserve({ accountId: account.id, keyId: parent.id, amount: 4 * USD, kind: "x" }), 4 * USD);

    const child = await delegate(parent.key, { scopes: ["inference", "keys:delegate"] });
    expect(child.status).toBe(201);
    expect(child.body).toMatchObject({ parent_id: parent.id, kind: "delegated", depth: 1, monthly_cap_micro_usd: 6 * USD, scopes: ["inference", "keys:delegate"] });
    expect(Date.parse(child.body.expires_at)).toBe(Date.parse((await h.json("GET", "/v1/keys", { headers: bearer(session.token) })).body.find((k: { id: string }) => k.id === parent.id).expires_at));

    expect((await delegate(parent.key, { scopes: ["sandboxes"] })).body.error.param).toBe("scopes");
    expect((await delegate(parent.key, { monthly_cap_micro_usd: 7 * USD })).body.error.param).toBe("monthly_cap_micro_usd");
    expect((await delegate(parent.key, { expires_in_secs: 10 * 3600 })).body.error.param).toBe("expires_at");

    const grandchild = await delegate(child.body.key, {});
    expect(grandchild.status).toBe(201);
    const tooDeep = await delegate(grandchild.body.key, {});
    expect(tooDeep.body.error.type).toBe("delegation_too_deep"); // depth would be 3, the limit here is 2
    const noDelegate = await mint(session.token, { scopes: ["inference"] });
    const refused = await delegate(noDelegate.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: "missing_scope", scope: "keys:delegate" });
  });

  test("the depth limit is enforced", async () => {
    h = makeHarness({ config: (c) => (c.keys.max_delegation_depth = 1) });
    const { session } = accountWithSession(h.ctx);
    const root = await mint(session.token);
    const child = await delegate(root.key);
    expect(child.status).toBe(201);
    const deeper = await delegate(child.body.key);
    expect(deeper.status).toBe(403);
    expect(deeper.body.error.type).toBe("delegation_too_deep");
  });
});

describe("revocation, rotation, freezing", () => {
  test("revoking a key revokes its whole subtree (3 levels), with key_revoked per key", async () => {
    h = makeHarness();
    const { session } = accountWithSession(h.ctx);
    const root = await mint(session.token);
    const a = (await delegate(root.key)).body;
    const b = (await delegate(a.key)).body;
    const c = (await delegate(b.key)).body;
    const sibling = await mint(session.token);
    const before = h.ctx.outbox.since(0).length;
    const r = await h.json("DELETE", `/v1/keys/${root.id}`, { headers: bearer(session.token) });
    expect(r.body).toMatchObject({ id: root.id, revoked: true });
    expect(r.body.revoked_keys.sort()).toEqual([root.id, a.id, b.id, c.id].sort());
    for (const key of [root.key, a.key, b.key, c.key]) expect((await h.json("GET", "/v1/credit", { headers: bearer(key) })).body.error.type).toBe("api_key_revoked");
    expect((await h.json("GET", "/v1/credit", { headers: bearer(sibling.key) })).status).toBe(200);
    const revokedEvents = h.ctx.outbox.since(0).slice(before).filter((e) => e.type === "key_revoked");
    expect(revokedEvents.map((e) => e.payload.key_id).sort()).toEqual([root.id, a.id, b.id, c.id].sort());
    expect(revokedEvents.find((e) => e.payload.key_id === c.id)!.payload.cascade_from).toBe(root.id);
    expect((await h.json("GET", "/v1/keys", { headers: bearer(session.token) })).body.map((k: { id: string }) => k.id)).toEqual([sibling.id]);
    expect((await h.json("GET", "/v1/keys?include_revoked=true", { headers: bearer(session.token) })).body.length).toBe(5);
    expect((await h.json("DELETE", `/v1/keys/${root.id}`, { headers: bearer(session.token) })).body.revoked).toBe(false);
  });

  test("a rotated key works (as its replacement) during the grace window and fails after it", async () => {
    h = makeHarness({ config: (c) => (c.keys.rotation_grace_secs = 3600) });
    const { session } = accountWithSession(h.ctx);
    const old = await mint(session.token, { scopes: ["billing:read", "keys:delegate"], monthly_cap_micro_usd: 9 * USD });
    const child = (await delegate(old.key)).body;
    const rotated = await h.json("POST", `/v1/keys/${old.id}/rotate`, { headers: bearer(session.token) });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ replaces: old.id, scopes: ["billing:read", "keys:delegate"], monthly_cap_micro_usd: 9 * USD });
    const next = rotated.body;
    expect((await h.json("GET", "/v1/credit", { headers: bearer(old.key) })).body.key.id).toBe(next.id);
    expect((await h.json("GET", "/v1/credit", { headers: bearer(next.key) })).body.key.id).toBe(next.id);
    const keys = (await h.json("GET", "/v1/keys", { headers: bearer(session.token) })).body as { id: string; parent_id: string | null; status: string }[];
    expect(keys.find((k) => k.id === child.id)!.parent_id).toBe(next.id);
    expect(keys.find((k) => k.id === old.id)!.status).toBe("rotated");
    h.clock.advance(3600 * 1000);
    const after = await h.json("GET", "/v1/credit", { headers: bearer(old.key) });
    expect(after.status).toBe(401);
    expect(after.body.error.type).toBe("api_key_rotated");
    expect((await h.json("GET", "/v1/credit", { headers: bearer(next.key) })).status).toBe(200);
  });

  test("a frozen key stays frozen after paying and is lifted only by unfreeze", async () => {
    h = makeHarness({ config: (c) => (c.keys.breaker_micro_usd_per_minute = 2 * USD) });
    const { account, session } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 10 * USD);
    const key = await mint(session.token);
    expect(() => h.ctx.meter.reserve({ accountId: account.id, keyId: key.id, amount: 3 * USD, kind: "x" })).toThrow(/frozen by its circuit breaker/);
    h.ctx.ledger.credit(account.id, 100 * USD, { type: "deposit" });
    expect(() => h.ctx.meter.reserve({ accountId: account.id, keyId: key.id, amount: 1, kind: "x" })).toThrow(/frozen/);
    const listed = (await h.json("GET", "/v1/keys", { headers: bearer(session.token) })).body[0];
    expect(listed).toMatchObject({ status: "frozen", frozen_reason: expect.stringContaining("circuit breaker") });
    expect((await h.json("GET", "/v1/credit", { headers: bearer(key.key) })).body.key.frozen).toBe(true);
    const lifted = await h.json("POST", `/v1/keys/${key.id}/unfreeze`, { headers: bearer(session.token) });
    expect(lifted.body.status).toBe("active");
    expect(h.ctx.meter.reserve({ accountId: account.id, keyId: key.id, amount: 1, kind: "x" }).amount).toBe(1);
  });

  test("the owner freezes a key by hand: its spending and its subtree's are refused until unfrozen; idempotent; not a revoked key", async () => {
    h = makeHarness();
    const { account, session } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 10 * USD);
    const key = await mint(session.token);
    const frozen = await h.json("POST", `/v1/keys/${key.id}/freeze`, { headers: bearer(session.token), body: { reason: "leaked in a log" } });
    expect(frozen.body).toMatchObject({ status: "frozen", frozen_reason: "leaked in a log" });
    const again = await h.json("POST", `/v1/keys/${key.id}/freeze`, { headers: bearer(session.token), body: {} });
    expect(again.body).toMatchObject({ status: "frozen", frozen_reason: "leaked in a log", frozen_at: frozen.body.frozen_at });
    expect(() => h.ctx.meter.reserve({ accountId: account.id, keyId: key.id, amount: 1, kind: "x" })).toThrow(/frozen/);
    expect((await h.json("POST", `/v1/keys/${key.id}/unfreeze`, { headers: bearer(session.token) })).body.status).toBe("active");
    expect(h.ctx.meter.reserve({ accountId: account.id, keyId: key.id, amount: 1, kind: "x" }).amount).toBe(1);
    const bad = await h.json("POST", `/v1/keys/${key.id}/freeze`, { headers: bearer(session.token), body: { reason: "x".repeat(201) } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("reason");
    await h.json("DELETE", `/v1/keys/${key.id}`, { headers: bearer(session.token) });
    expect((await h.json("POST", `/v1/keys/${key.id}/freeze`, { headers: bearer(session.token), body: {} })).status).toBe(409);
  });

  test("another account's key answers 404 everywhere", async () => {
    h = makeHarness();
    const mine = accountWithSession(h.ctx);
    const theirs = accountWithSession(h.ctx);
    const key = await mint(theirs.session.token);
    for (const [m, p] of [["DELETE", `/v1/keys/${key.id}`], ["POST", `/v1/keys/${key.id}/rotate`], ["POST", `/v1/keys/${key.id}/unfreeze`], ["POST", `/v1/keys/${key.id}/freeze`], ["DELETE", "/v1/keys/key_nope"]]) {
      const r = await h.json(m!, p!, { headers: bearer(mine.session.token) });
      expect(r.status).toBe(404);
    }
    expect((await h.json("GET", "/v1/credit", { headers: bearer(key.key) })).status).toBe(200); // untouched
  });
});
