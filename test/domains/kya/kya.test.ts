/** /v1/kya through HTTP: credentials bound to a key or a mandate, signed and checked with viem, supersession, revocation, the public page, bad input and tenancy. */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, test } from "bun:test";
import { recoverMessageAddress, type Hex } from "viem";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const USD = 1_000_000;

function tenant() {
  const { account, session } = accountWithSession(h.ctx);
  const wallet = `0x${randomBytes(20).toString("hex")}`;
  addWallet(h.ctx, account.id, wallet);
  const key = apiKeyFor(h.ctx, account.id, { monthlyCap: 3 * USD, scopes: ["inference"] });
  return { accountId: account.id, headers: bearer(session.token), keyId: key.id, wallet };
}
type Tenant = ReturnType<typeof tenant>;

const issue = (t: Tenant, body: Record<string, unknown>) => h.json("POST", "/v1/kya/credentials", { headers: t.headers, body });

async function mandate(t: Tenant) {
  const r = await h.json("POST", "/v1/mandates", {
    headers: t.headers,
    body: { purpose: "buy datasets", budget_micro_usd: 2 * USD, allowed_models: ["gpt-test"], valid_until: new Date(h.clock.now() + 7 * 86_400_000).toISOString() },
  });
  expect(r.status).toBe(201);
  return r.body;
}

async function signedBySvc(c: { credential: string; signature: string; signer: string }) {
  const recovered = await recoverMessageAddress({ message: c.credential, signature: c.signature as Hex });
  const pub = await h.json("GET", "/v1/receipts/pubkey");
  expect(recovered.toLowerCase()).toBe(String(pub.body.address).toLowerCase());
  expect(recovered as string).toBe(c.signer);
  return JSON.parse(Buffer.from(c.credential, "base64url").toString("utf8"));
}

describe("issuing", () => {
  test("bound to a key: the key's scopes and caps and the operator's wallet, signed (viem recovers svc's signer)", async () => {
    h = makeHarness();
    const a = tenant();
    const r = await issue(a, { handle: "shopper", key_id: a.keyId, agent_name: "Shopper" });
    expect(r.status).toBe(201);
    const c = r.body;
    expect(c).toMatchObject({ handle: "shopper", status: "active", binding: { kind: "key", id: a.keyId }, binding_status: "active", supersedes: null, superseded_by: null, revoked_at: null });
    expect(c.id).toMatch(/^kya_/);
    const payload = await signedBySvc(c);
    expect(payload).toEqual(c.payload);
    expect(payload).toMatchObject({
      v: 1,
      type: "kya-credential",
      id: c.id,
      handle: "shopper",
      agent_name: "Shopper",
      binding: { kind: "key", id: a.keyId },
      key: { id: a.keyId, kind: "standard" },
      may: { scopes: ["inference"], monthly_cap_micro_usd: 3 * USD, total_cap_micro_usd: null, allowed_models: null, purpose: null },
      supersedes: null,
      issued_at: c.issued_at,
    });
    expect(payload.operator_wallet.toLowerCase()).toBe(a.wallet);
    expect(JSON.stringify(payload)).not.toContain(a.accountId);
    const checked = await h.json("POST", "/v1/receipts/verify", { body: { receipt: c.credential, signature: c.signature } });
    expect(checked.body.valid).toBe(true);

    const open = await h.json("GET", "/v1/kya/public/shopper");
    expect(open.status).toBe(200);
    expect(open.body).toEqual(c);
    expect(c.public_url).toEndWith("/v1/kya/public/shopper");
  });

  test("bound to a mandate: its budget, allow-list, window and purpose", async () => {
    h = makeHarness();
    const a = tenant();
    const m = await mandate(a);
    const c = (await issue(a, { handle: "buyer", mandate_id: m.id })).body;
    expect(c).toMatchObject({ binding: { kind: "mandate", id: m.id }, binding_status: "active" });
    expect((await signedBySvc(c)).may).toEqual({
      scopes: m.scopes,
      monthly_cap_micro_usd: null,
      total_cap_micro_usd: 2 * USD,
      allowed_models: ["gpt-test"],
      allowed_services: null,
      valid_from: m.valid_from,
      valid_until: m.valid_until,
      purpose: "buy datasets",
    });
    expect(c.payload.key).toEqual({ id: m.key_id, prefix: m.key_prefix, kind: "mandate" });
  });
});

describe("supersession and revocation", () => {
  test("a new credential for the handle supersedes the active one; the public page shows the newest; revoking is idempotent and visible", async () => {
    h = makeHarness();
    const a = tenant();
    const first = (await issue(a, { handle: "relay", key_id: a.keyId })).body;
    h.clock.advance(1000);
    const m = await mandate(a);
    const second = (await issue(a, { handle: "relay", mandate_id: m.id })).body;
    expect(second).toMatchObject({ status: "active", supersedes: first.id });
    expect(second.payload.supersedes).toBe(first.id);

    const list = await h.json("GET", "/v1/kya/credentials", { headers: a.headers });
    expect(list.status).toBe(200);
    expect(list.body.credentials.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      [second.id, "active"],
      [first.id, "superseded"],
    ]);
    expect(list.body.credentials[1]).toMatchObject({ superseded_by: second.id, superseded_at: second.issued_at });
    expect((await h.json("GET", "/v1/kya/public/relay")).body.id).toBe(second.id);
    // Another handle of the same account is independent.
    const other = (await issue(a, { handle: "relay-two", key_id: a.keyId })).body;
    expect(other.supersedes).toBeNull();

    const revoked = await h.json("DELETE", `/v1/kya/credentials/${second.id}`, { headers: a.headers });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: second.id, status: "revoked" });
    expect(revoked.body.revoked_at).not.toBeNull();
    const again = await h.json("DELETE", `/v1/kya/credentials/${second.id}`, { headers: a.headers });
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    expect((await h.json("GET", "/v1/kya/public/relay")).body).toMatchObject({ id: second.id, status: "revoked" });

    // With no active credential, the next one supersedes nothing.
    const third = (await issue(a, { handle: "relay", key_id: a.keyId })).body;
    expect(third.supersedes).toBeNull();
    expect((await h.json("GET", "/v1/kya/public/relay")).body).toMatchObject({ id: third.id, status: "active" });
  });

  test("binding_status follows the key after issue; an inactive key or mandate cannot be bound", async () => {
    h = makeHarness();
    const a = tenant();
    const c = (await issue(a, { handle: "watcher", key_id: a.keyId })).body;
    expect((await h.json("DELETE", `/v1/keys/${a.keyId}`, { headers: a.headers })).status).toBe(200);
    expect((await h.json("GET", "/v1/kya/public/watcher")).body).toMatchObject({ id: c.id, status: "active", binding_status: "revoked" });
    const refused = await issue(a, { handle: "watcher", key_id: a.keyId });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: "binding_inactive", param: "key_id" });

    const m = await mandate(a);
    expect((await h.json("DELETE", `/v1/mandates/${m.id}`, { headers: a.headers })).status).toBe(200);
    const gone = await issue(a, { handle: "watcher", mandate_id: m.id });
    expect(gone.status).toBe(409);
    expect(gone.body.error).toMatchObject({ type: "binding_inactive", param: "mandate_id" });
  });
});

describe("public page", () => {
  test("404 when nothing was issued under the handle", async () => {
    h = makeHarness();
    const r = await h.json("GET", "/v1/kya/public/nobody");
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe("not_found");
  });
});

describe("tenancy", () => {
  test("another account's credential, key and mandate answer 404 like unknown ones; its handle is refused", async () => {
    h = makeHarness();
    const a = tenant();
    const b = tenant();
    const m = await mandate(a);
    const c = (await issue(a, { handle: "mine", key_id: a.keyId })).body;

    const cases: [string, Promise<{ status: number; body: any }>, Promise<{ status: number; body: any }>][] = [
      ["delete", h.json("DELETE", `/v1/kya/credentials/${c.id}`, { headers: b.headers }), h.json("DELETE", "/v1/kya/credentials/kya_unknown", { headers: b.headers })],
      ["key", issue(b, { handle: "theirs", key_id: a.keyId }), issue(b, { handle: "theirs", key_id: "key_unknown" })],
      ["mandate", issue(b, { handle: "theirs", mandate_id: m.id }), issue(b, { handle: "theirs", mandate_id: "mdt_unknown" })],
    ];
    for (const [what, foreign, unknown] of cases) {
      const [x, y] = await Promise.all([foreign, unknown]);
      expect({ what, status: x.status }).toEqual({ what, status: 404 });
      expect(x.body).toEqual(y.body);
    }
    expect((await h.json("GET", "/v1/kya/credentials", { headers: b.headers })).body.credentials).toEqual([]);
    expect((await h.json("GET", "/v1/kya/public/mine")).body.status).toBe("active");

    const taken = await issue(b, { handle: "mine", key_id: b.keyId });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ type: "handle_taken", param: "handle" });
    // A passport handle is the same namespace.
    expect((await h.json("POST", "/v1/passport", { headers: a.headers, body: { handle: "a-passport", agent_name: "A" } })).status).toBe(201);
    expect((await issue(b, { handle: "a-passport", key_id: b.keyId })).body.error.type).toBe("handle_taken");
    expect((await issue(a, { handle: "a-passport", key_id: a.keyId })).status).toBe(201);
  });
});

describe("bad input and access", () => {
  test("each malformed field is refused with 400 naming it", async () => {
    h = makeHarness();
    const a = tenant();
    const cases: [Record<string, unknown>, string][] = [
      [{ key_id: a.keyId }, "handle"],
      [{ handle: "No", key_id: a.keyId }, "handle"],
      [{ handle: "has space", key_id: a.keyId }, "handle"],
      [{ handle: "fine" }, "key_id"],
      [{ handle: "fine", key_id: a.keyId, mandate_id: "mdt_x" }, "mandate_id"],
      [{ handle: "fine", key_id: "" }, "key_id"],
      [{ handle: "fine", key_id: a.keyId, agent_name: "  " }, "agent_name"],
      [{ handle: "fine", key_id: a.keyId, scopes: ["*"] }, "scopes"],
    ];
    for (const [body, param] of cases) {
      const r = await issue(a, body);
      expect({ body, status: r.status, param: r.body.error?.param }).toEqual({ body, status: 400, param });
    }
    expect((await h.json("GET", "/v1/kya/credentials", { headers: a.headers })).body.credentials).toEqual([]);
  });

  test("the owner routes take a session", async () => {
    h = makeHarness();
    expect((await h.json("GET", "/v1/kya/credentials")).status).toBe(401);
    expect((await h.json("POST", "/v1/kya/credentials", { body: { handle: "x-y-z", key_id: "key_x" } })).status).toBe(401);
    expect((await h.json("DELETE", "/v1/kya/credentials/kya_x")).status).toBe(401);
  });
});
