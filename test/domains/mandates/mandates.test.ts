/** /v1/mandates through HTTP: granting, the meter enforcing the terms, listing, revoking, and proofs verified with viem. */
import { afterEach, describe, expect, test } from "bun:test";
import { verifyMessage } from "viem";
import { createMandate } from "../../../src/domains/mandates/service.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const USD = 1_000_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function tenant() {
  const { account, session } = accountWithSession(h.ctx);
  return { accountId: account.id, auth: bearer(session.token) };
}

const at = (offsetMs: number) => new Date(h.clock.now() + offsetMs).toISOString();

async function grant(auth: Record<string, string>, body: Record<string, unknown> = {}) {
  const r = await h.json("POST", "/v1/mandates", { headers: auth, body: { purpose: "buy research summaries", budget_micro_usd: 2 * USD, valid_until: at(30 * DAY), ...body } });
  if (r.status !== 201) throw new Error(`grant failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const reserve = (accountId: string, keyId: string, amount: number, resource = "gpt-test", resourceType: "model" | "service" = "model") =>
  h.ctx.meter.reserve({ accountId, keyId, amount, kind: "test", resource, resourceType });

/** The refusal a meter call throws, as {status, type}. */
function refusal(fn: () => unknown): { status: number; type: string } {
  try {
    fn();
  } catch (err) {
    const e = err as { status: number; type: string };
    return { status: e.status, type: e.type };
  }
  throw new Error("expected the meter to refuse");
}

/** An independent canonical JSON (spec §2.4): sorted keys, no whitespace, integers only. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

describe("POST /v1/mandates", () => {
  test("returns the key once; the key carries the mandate's controls and works on routes its scopes allow", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    const made = await grant(auth, { name: "researcher", scopes: ["billing:read", "inference"], allowed_models: ["gpt-test"], monthly_cap_micro_usd: USD });
    expect(made.key).toMatch(/^sk-svc_/);
    expect(made.id).toMatch(/^mdt_[a-z2-7]{24}$/);
    expect(made.key.startsWith(made.key_prefix)).toBe(true);
    expect(made).toMatchObject({
      name: "researcher",
      purpose: "buy research summaries",
      budget_micro_usd: 2 * USD,
      monthly_cap_micro_usd: USD,
      spent_micro_usd: 0,
      held_micro_usd: 0,
      remaining_micro_usd: 2 * USD,
      scopes: ["billing:read", "inference"],
      allowed_models: ["gpt-test"],
      allowed_services: null,
      valid_from: at(0),
      valid_until: at(30 * DAY),
      status: "active",
      revoked_at: null,
      created_at: at(0),
    });
    // The key is an ordinary API key of kind "mandate" with the terms as its controls.
    const keys = await h.json("GET", "/v1/keys", { headers: auth });
    expect(keys.body).toHaveLength(1);
    expect(keys.body[0]).toMatchObject({
      id: made.key_id,
      kind: "mandate",
      total_cap_micro_usd: 2 * USD,
      monthly_cap_micro_usd: USD,
      allowed_models: ["gpt-test"],
      not_before: at(0),
      expires_at: at(30 * DAY),
    });
    expect(JSON.stringify(keys.body)).not.toContain(made.key);
    h.ctx.ledger.credit(accountId, 10 * USD, { type: "deposit" });
    const credit = await h.json("GET", "/v1/credit", { headers: bearer(made.key) });
    expect(credit.status).toBe(200);
    expect(credit.body.key.id).toBe(made.key_id);
    // A mandate without billing:read cannot read the credit.
    const narrow = await grant(auth, { scopes: ["inference"] });
    const refused = await h.json("GET", "/v1/credit", { headers: bearer(narrow.key) });
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe("missing_scope");
    expect(h.ctx.outbox.since(0).filter((e) => e.type === "key_created").map((e) => e.payload.kind)).toEqual(["mandate", "mandate"]);
  });

  test("scopes default to every scope; a valid_from within the clock-skew allowance is taken as now", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const made = await grant(auth, { valid_from: at(-60_000) });
    expect(made.scopes).toEqual(["*"]);
    expect(made.valid_from).toBe(at(0));
  });

  test("bad input answers 400 naming the field", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const base = { purpose: "p", budget_micro_usd: USD, valid_until: at(DAY) };
    const cases: [Record<string, unknown>, string][] = [
      [{ budget_micro_usd: USD, valid_until: at(DAY) }, "purpose"],
      [{ ...base, purpose: "" }, "purpose"],
      [{ ...base, purpose: "   " }, "purpose"],
      [{ ...base, purpose: "x".repeat(501) }, "purpose"],
      [{ ...base, budget_micro_usd: "1000000" }, "budget_micro_usd"],
      [{ ...base, budget_micro_usd: 0 }, "budget_micro_usd"],
      [{ ...base, budget_micro_usd: 1.5 }, "budget_micro_usd"],
      [{ ...base, budget_micro_usd: 2 ** 60 }, "budget_micro_usd"],
      [{ purpose: "p", budget_micro_usd: USD }, "valid_until"],
      [{ ...base, valid_until: "tomorrow" }, "valid_until"],
      [{ ...base, valid_until: "2030-01-01" }, "valid_until"],
      [{ ...base, valid_until: "2030-01-01T00:00:00" }, "valid_until"],
      [{ ...base, valid_until: at(-HOUR) }, "valid_until"],
      [{ ...base, valid_from: at(2 * DAY) }, "valid_until"],
      [{ ...base, valid_until: at(367 * DAY) }, "valid_until"],
      [{ ...base, valid_from: at(-HOUR) }, "valid_from"],
      [{ ...base, valid_from: at(400 * DAY), valid_until: at(401 * DAY) }, "valid_from"],
      [{ ...base, scopes: ["root"] }, "scopes"],
      [{ ...base, scopes: [] }, "scopes"],
      [{ ...base, allowed_models: [] }, "allowed_models"],
      [{ ...base, allowed_services: [""] }, "allowed_services"],
      [{ ...base, monthly_cap_micro_usd: 2 * USD }, "monthly_cap_micro_usd"],
      [{ ...base, monthly_cap_micro_usd: 0 }, "monthly_cap_micro_usd"],
      [{ ...base, key: "sk-svc_mine" }, "key"],
    ];
    for (const [body, param] of cases) {
      const r = await h.json("POST", "/v1/mandates", { headers: auth, body });
      expect({ param, status: r.status, type: r.body.error?.type }).toEqual({ param, status: 400, type: "invalid_request" });
      expect(r.body.error.param).toBe(param);
    }
    expect((await h.json("GET", "/v1/mandates", { headers: auth })).body.mandates).toEqual([]);
    expect((await h.json("GET", "/v1/keys", { headers: auth })).body).toEqual([]);
  });

  test("session routes: no credential 401, an API key 401", async () => {
    h = makeHarness();
    const { accountId } = tenant();
    const key = apiKeyFor(h.ctx, accountId);
    expect((await h.json("GET", "/v1/mandates")).status).toBe(401);
    const r = await h.json("POST", "/v1/mandates", { headers: bearer(key.token), body: { purpose: "p", budget_micro_usd: 1, valid_until: at(DAY) } });
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe("wrong_credential_class");
  });
});

describe("the meter enforces the mandate", () => {
  test("the budget is a lifetime cap: refused beyond it (402 spend_cap_reached), spent and remaining follow settles", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    h.ctx.ledger.credit(accountId, 10 * USD, { type: "deposit" });
    const m = await grant(auth, { budget_micro_usd: USD });
    const first = reserve(accountId, m.key_id, 600_000);
    let listed = (await h.json("GET", "/v1/mandates", { headers: auth })).body.mandates[0];
    expect(listed).toMatchObject({ spent_micro_usd: 0, held_micro_usd: 600_000, remaining_micro_usd: USD });
    // What is held counts against the budget too.
    expect(refusal(() => reserve(accountId, m.key_id, 500_000))).toEqual({ status: 402, type: "spend_cap_reached" });
    h.ctx.meter.settle(first, 400_000);
    listed = (await h.json("GET", "/v1/mandates", { headers: auth })).body.mandates[0];
    expect(listed).toMatchObject({ spent_micro_usd: 400_000, held_micro_usd: 0, remaining_micro_usd: 600_000, status: "active" });
    expect(refusal(() => reserve(accountId, m.key_id, 600_001))).toEqual({ status: 402, type: "spend_cap_reached" });
    h.ctx.meter.settle(reserve(accountId, m.key_id, 600_000), 600_000);
    listed = (await h.json("GET", "/v1/mandates", { headers: auth })).body.mandates[0];
    expect(listed).toMatchObject({ spent_micro_usd: USD, remaining_micro_usd: 0, status: "exhausted" });
    expect(refusal(() => reserve(accountId, m.key_id, 1))).toEqual({ status: 402, type: "spend_cap_reached" });
    // The account's own balance is untouched beyond what the mandate spent.
    expect(h.ctx.ledger.balance(accountId).balance_micro_usd).toBe(9 * USD);
  });

  test("models and services outside the allow-lists are refused (403 resource_not_allowed)", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    h.ctx.ledger.credit(accountId, 10 * USD, { type: "deposit" });
    const m = await grant(auth, { allowed_models: ["gpt-test", "gpt-test"], allowed_services: ["weather"] });
    expect(m.allowed_models).toEqual(["gpt-test"]);
    expect(refusal(() => reserve(accountId, m.key_id, 1000, "gpt-big"))).toEqual({ status: 403, type: "resource_not_allowed" });
    expect(refusal(() => reserve(accountId, m.key_id, 1000, "stocks", "service"))).toEqual({ status: 403, type: "resource_not_allowed" });
    h.ctx.meter.settle(reserve(accountId, m.key_id, 1000, "gpt-test"), 1000);
    h.ctx.meter.settle(reserve(accountId, m.key_id, 1000, "weather", "service"), 1000);
  });

  test("the validity window: refused before valid_from and after valid_until; status follows the clock", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    h.ctx.ledger.credit(accountId, 10 * USD, { type: "deposit" });
    const m = await grant(auth, { valid_from: at(HOUR), valid_until: at(2 * HOUR), scopes: ["billing:read"] });
    expect(m.status).toBe("not_yet_valid");
    expect(refusal(() => reserve(accountId, m.key_id, 1000))).toEqual({ status: 403, type: "api_key_not_yet_valid" });
    h.clock.advance(HOUR);
    expect((await h.json("GET", "/v1/mandates", { headers: auth })).body.mandates[0].status).toBe("active");
    h.ctx.meter.settle(reserve(accountId, m.key_id, 1000), 1000);
    h.clock.advance(HOUR);
    expect((await h.json("GET", "/v1/mandates", { headers: auth })).body.mandates[0]).toMatchObject({ status: "expired", spent_micro_usd: 1000 });
    expect(refusal(() => reserve(accountId, m.key_id, 1000))).toEqual({ status: 403, type: "api_key_expired" });
    const r = await h.json("GET", "/v1/credit", { headers: bearer(m.key) });
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe("api_key_expired");
  });
});

describe("GET /v1/mandates", () => {
  test("named-key envelope, newest first, only the caller's, secrets never shown", async () => {
    h = makeHarness();
    const a = tenant();
    const b = tenant();
    const first = await grant(a.auth, { purpose: "first" });
    h.clock.advance(1000);
    const second = await grant(a.auth, { purpose: "second" });
    await grant(b.auth, { purpose: "theirs" });
    const r = await h.json("GET", "/v1/mandates", { headers: a.auth });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(["mandates"]);
    expect(r.body.mandates.map((m: { id: string }) => m.id)).toEqual([second.id, first.id]);
    expect(JSON.stringify(r.body)).not.toContain(first.key);
    expect(r.body.mandates[0]).not.toHaveProperty("key");
  });

  test("at most 200, the newest", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    const ids: string[] = [];
    for (let i = 0; i < 201; i++) {
      h.clock.advance(1);
      const { mandate } = createMandate(h.ctx, accountId, {
        name: null,
        purpose: `m${i}`,
        budget: 1,
        monthlyCap: null,
        scopes: ["*"],
        allowedModels: null,
        allowedServices: null,
        validFrom: null,
        validUntil: h.clock.now() + DAY,
      });
      ids.push(mandate.id);
    }
    const listed = (await h.json("GET", "/v1/mandates", { headers: auth })).body.mandates;
    expect(listed).toHaveLength(200);
    expect(listed[0].id).toBe(ids[200]);
    expect(listed.map((m: { id: string }) => m.id)).not.toContain(ids[0]);
  });
});

describe("DELETE /v1/mandates/:id", () => {
  test("revokes the key (key_revoked), marks the mandate revoked, and is idempotent", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    h.ctx.ledger.credit(accountId, 10 * USD, { type: "deposit" });
    const m = await grant(auth, { scopes: ["billing:read"] });
    expect((await h.json("GET", "/v1/credit", { headers: bearer(m.key) })).status).toBe(200);
    const del = await h.json("DELETE", `/v1/mandates/${m.id}`, { headers: auth });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: m.id, status: "revoked", revoked_at: at(0) });
    const after = await h.json("GET", "/v1/credit", { headers: bearer(m.key) });
    expect(after.status).toBe(401);
    expect(after.body.error.type).toBe("api_key_revoked");
    expect(refusal(() => reserve(accountId, m.key_id, 1))).toEqual({ status: 403, type: "api_key_revoked" });
    h.clock.advance(5000);
    const again = await h.json("DELETE", `/v1/mandates/${m.id}`, { headers: auth });
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(del.body.revoked_at);
    const revoked = h.ctx.outbox.since(0).filter((e) => e.type === "key_revoked");
    expect(revoked.map((e) => [e.payload.key_id, e.payload.reason])).toEqual([[m.key_id, "mandate_revoked"]]);
    expect((await h.json("GET", "/v1/mandates", { headers: auth })).body.mandates[0].status).toBe("revoked");
  });

  test("cascades over keys the mandate's key delegated", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const m = await grant(auth, { scopes: ["billing:read", "keys:delegate"] });
    const child = await h.json("POST", "/v1/keys/delegate", { headers: bearer(m.key), body: { scopes: ["billing:read"] } });
    expect(child.status).toBe(201);
    expect((await h.json("DELETE", `/v1/mandates/${m.id}`, { headers: auth })).status).toBe(200);
    expect((await h.json("GET", "/v1/credit", { headers: bearer(child.body.key) })).status).toBe(401);
  });

  test("a rotated mandate key: the mandate follows the replacement, and revoking reaches it", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    h.ctx.ledger.credit(accountId, 10 * USD, { type: "deposit" });
    const m = await grant(auth, { scopes: ["billing:read"], budget_micro_usd: USD });
    h.ctx.meter.settle(reserve(accountId, m.key_id, 300_000), 300_000);
    const rotated = await h.json("POST", `/v1/keys/${m.key_id}/rotate`, { headers: auth });
    expect(rotated.status).toBe(201);
    const listed = (await h.json("GET", "/v1/mandates", { headers: auth })).body.mandates[0];
    expect(listed).toMatchObject({ key_id: rotated.body.id, spent_micro_usd: 300_000, remaining_micro_usd: 700_000, status: "active" });
    await h.json("DELETE", `/v1/mandates/${m.id}`, { headers: auth });
    expect((await h.json("GET", "/v1/credit", { headers: bearer(rotated.body.key) })).status).toBe(401);
    expect((await h.json("GET", "/v1/credit", { headers: bearer(m.key) })).status).toBe(401);
  });

  test("revoking the key directly (DELETE /v1/keys/:id) shows the mandate revoked", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const m = await grant(auth);
    await h.json("DELETE", `/v1/keys/${m.key_id}`, { headers: auth });
    expect((await h.json("GET", "/v1/mandates", { headers: auth })).body.mandates[0]).toMatchObject({ status: "revoked", revoked_at: at(0) });
  });

  test("another account's mandate and unknown ids answer 404, and change nothing", async () => {
    h = makeHarness();
    const a = tenant();
    const b = tenant();
    const m = await grant(a.auth, { scopes: ["billing:read"] });
    for (const path of [`/v1/mandates/${m.id}`, "/v1/mandates/mdt_unknown"]) {
      const r = await h.json("DELETE", path, { headers: b.auth });
      expect(r.status).toBe(404);
      expect(r.body.error.type).toBe("not_found");
      expect((await h.json("POST", `${path}/proof`, { headers: b.auth })).status).toBe(404);
    }
    expect((await h.json("GET", "/v1/credit", { headers: bearer(m.key) })).status).toBe(200);
  });
});

describe("POST /v1/mandates/:id/proof", () => {
  test("a statement of the terms and spend that viem verifies; its decoded payload matches; tampering fails", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant();
    h.ctx.ledger.credit(accountId, 10 * USD, { type: "deposit" });
    const m = await grant(auth, { budget_micro_usd: USD, allowed_models: ["gpt-test"], valid_until: at(7 * DAY) });
    h.ctx.meter.settle(reserve(accountId, m.key_id, 250_000), 250_000);
    h.clock.advance(60_000);
    const r = await h.json("POST", `/v1/mandates/${m.id}/proof`, { headers: auth });
    expect(r.status).toBe(200);
    const { statement, signature, signer, payload } = r.body;
    expect(signer).toBe(h.ctx.signer.address);
    expect(await verifyMessage({ address: signer, message: statement, signature })).toBe(true);

    const decoded = JSON.parse(Buffer.from(statement, "base64url").toString("utf8"));
    expect(Buffer.from(statement, "base64url").toString("utf8")).toBe(canonical(decoded));
    expect(decoded).toEqual(payload);
    expect(decoded).toEqual({
      v: 1,
      type: "mandate-proof",
      mandate_id: m.id,
      account_id: accountId,
      key_id: m.key_id,
      purpose: "buy research summaries",
      budget_micro_usd: USD,
      monthly_cap_micro_usd: null,
      spent_micro_usd: 250_000,
      remaining_micro_usd: 750_000,
      scopes: ["*"],
      allowed_models: ["gpt-test"],
      allowed_services: null,
      valid_from: m.valid_from,
      valid_until: at(7 * DAY - 60_000),
      status: "active",
      issued_at: at(0),
    });

    const forged = Buffer.from(canonical({ ...decoded, budget_micro_usd: 100 * USD })).toString("base64url");
    expect(await verifyMessage({ address: signer, message: forged, signature })).toBe(false);
    const flipped: `0x${string}` = `0x${signature.slice(2, 10)}${signature[10] === "0" ? "1" : "0"}${signature.slice(11)}`;
    expect(await verifyMessage({ address: signer, message: statement, signature: flipped }).catch(() => false)).toBe(false);
  });

  test("a revoked mandate's proof says revoked", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const m = await grant(auth);
    await h.json("DELETE", `/v1/mandates/${m.id}`, { headers: auth });
    const r = await h.json("POST", `/v1/mandates/${m.id}/proof`, { headers: auth });
    expect(r.body.payload.status).toBe("revoked");
    expect(await verifyMessage({ address: r.body.signer, message: r.body.statement, signature: r.body.signature })).toBe(true);
  });
});
