/** /v1/notary/receipts through HTTP: registration, billing per receipt, no idempotency, list, one, tenancy, bad input. */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, test } from "bun:test";
import { recoverMessageAddress, type Hex } from "viem";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const USD = 1_000_000;
const PRICE = 3_000;
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const INPUT = sha256("the prompt an agent ran elsewhere");
const OUTPUT = sha256("what it answered");

function notaryHarness(price = PRICE): Harness {
  return makeHarness({ config: (c) => void (c.notary.receipt_price_micro_usd = price) });
}

function funded(credit = 10 * USD) {
  const { account } = accountWithSession(h.ctx);
  if (credit > 0) h.ctx.ledger.credit(account.id, credit, { type: "deposit" });
  const key = apiKeyFor(h.ctx, account.id);
  return { accountId: account.id, key, auth: { headers: bearer(key.token) } };
}

const register = (token: string, body: unknown, headers: Record<string, string> = {}) => h.json("POST", "/v1/notary/receipts", { headers: { ...bearer(token), ...headers }, body });
const balance = (accountId: string) => h.ctx.ledger.balance(accountId).balance_micro_usd;

/** Recovers the EIP-191 signer with viem, checks it is the deployment's (GET /v1/receipts/pubkey), returns the payload. */
async function verified(r: { receipt: string; signature: string; signer: string }): Promise<any> {
  const recovered = await recoverMessageAddress({ message: r.receipt, signature: r.signature as Hex });
  const pub = await h.json("GET", "/v1/receipts/pubkey");
  expect(recovered.toLowerCase()).toBe(String(pub.body.address).toLowerCase());
  expect(recovered.toLowerCase()).toBe(r.signer.toLowerCase());
  return JSON.parse(Buffer.from(r.receipt, "base64url").toString("utf8"));
}

describe("POST /v1/notary/receipts", () => {
  test("registers the fingerprints in a signed receipt, billed at the configured price", async () => {
    h = notaryHarness();
    const a = funded();
    const before = balance(a.accountId);
    const r = await register(a.key.token, { input_sha256: INPUT.toUpperCase(), output_sha256: OUTPUT, label: "nightly summariser", occurred_at: "2026-11-21T11:30:00Z" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      key_id: a.key.id,
      input_sha256: INPUT,
      output_sha256: OUTPUT,
      label: "nightly summariser",
      label_sha256: sha256("nightly summariser"),
      occurred_at: "2026-11-21T11:30:00.000Z",
      cost_micro_usd: PRICE,
    });
    expect(r.body.id).toMatch(/^ntr_/);
    const payload = await verified(r.body.receipt);
    expect(payload).toMatchObject({ kind: "notary", status: "registered", account: a.accountId, key_id: a.key.id, resource: r.body.id, cost_micro_usd: PRICE });
    expect(payload.attestations.notary).toEqual({ input_sha256: INPUT, output_sha256: OUTPUT, label_sha256: sha256("nightly summariser"), occurred_at: "2026-11-21T11:30:00.000Z" });
    // The label itself is not in the receipt: only its fingerprint.
    expect(JSON.stringify(payload)).not.toContain("summariser");
    expect(balance(a.accountId)).toBe(before - PRICE);
  });

  test("no idempotency: the same body twice (even under one Idempotency-Key header) is two receipts and two charges", async () => {
    h = notaryHarness();
    const a = funded();
    const before = balance(a.accountId);
    const body = { input_sha256: INPUT, output_sha256: OUTPUT };
    const one = await register(a.key.token, body, { "idempotency-key": "same-1" });
    const two = await register(a.key.token, body, { "idempotency-key": "same-1" });
    expect([one.status, two.status]).toEqual([201, 201]);
    expect(one.body.id).not.toBe(two.body.id);
    expect(one.body.receipt.receipt_id).not.toBe(two.body.receipt.receipt_id);
    expect(one.body).toMatchObject({ label: null, label_sha256: null, occurred_at: null });
    expect((await verified(two.body.receipt)).attestations.notary).toEqual({ input_sha256: INPUT, output_sha256: OUTPUT });
    expect(balance(a.accountId)).toBe(before - 2 * PRICE);
  });

  test("402 when the account cannot pay; nothing is stored", async () => {
    h = notaryHarness();
    const poor = funded(0);
    const r = await register(poor.key.token, { input_sha256: INPUT, output_sha256: OUTPUT });
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("insufficient_credit");
    expect((await h.json("GET", "/v1/notary/receipts", poor.auth)).body.receipts).toEqual([]);
  });

  test("at price 0 a registration is still receipted", async () => {
    h = notaryHarness(0);
    const a = funded(0);
    const r = await register(a.key.token, { input_sha256: INPUT, output_sha256: OUTPUT });
    expect(r.status).toBe(201);
    expect(await verified(r.body.receipt)).toMatchObject({ kind: "notary", cost_micro_usd: 0 });
  });

  test("bad input names the field and bills nothing", async () => {
    h = notaryHarness();
    const a = funded();
    const before = balance(a.accountId);
    const ok = { input_sha256: INPUT, output_sha256: OUTPUT };
    const cases: [unknown, string][] = [
      [{ output_sha256: OUTPUT }, "input_sha256"],
      [{ input_sha256: INPUT }, "output_sha256"],
      [{ ...ok, input_sha256: INPUT.slice(1) }, "input_sha256"],
      [{ ...ok, input_sha256: `${"g".repeat(64)}` }, "input_sha256"],
      [{ ...ok, output_sha256: 42 }, "output_sha256"],
      [{ ...ok, label: "" }, "label"],
      [{ ...ok, label: "x".repeat(201) }, "label"],
      [{ ...ok, occurred_at: "yesterday" }, "occurred_at"],
      [{ ...ok, occurred_at: "2027-01-01T00:00:00Z" }, "occurred_at"],
      [{ ...ok, idempotency_key: "k1" }, "idempotency_key"],
    ];
    for (const [body, param] of cases) {
      const r = await register(a.key.token, body);
      expect([r.status, r.body.error?.param]).toEqual([400, param]);
    }
    expect(balance(a.accountId)).toBe(before);
    const bad = await h.json("GET", "/v1/notary/receipts?limit=0", a.auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("limit");
  });
});

describe("GET /v1/notary/receipts and /:id", () => {
  test("lists newest first with ?limit=, reads one, and another account's id answers 404 like an unknown one", async () => {
    h = notaryHarness();
    const a = funded();
    const b = funded();
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await register(a.key.token, { input_sha256: sha256(`in ${i}`), output_sha256: sha256(`out ${i}`) })).body);

    const list = await h.json("GET", "/v1/notary/receipts", a.auth);
    expect(list.status).toBe(200);
    expect(list.body.receipts.map((r: { id: string }) => r.id)).toEqual(made.map((m) => m.id).reverse());
    const limited = await h.json("GET", "/v1/notary/receipts?limit=2", a.auth);
    expect(limited.body.receipts.map((r: { id: string }) => r.id)).toEqual([made[2].id, made[1].id]);

    const one = await h.json("GET", `/v1/notary/receipts/${made[0].id}`, a.auth);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(made[0]);

    const foreign = await h.json("GET", `/v1/notary/receipts/${made[0].id}`, b.auth);
    const unknown = await h.json("GET", "/v1/notary/receipts/ntr_doesnotexist00000000000", b.auth);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect((await h.json("GET", "/v1/notary/receipts", b.auth)).body.receipts).toEqual([]);
  });

  test("a key without the records scope is refused", async () => {
    h = notaryHarness();
    const a = funded();
    const narrow = apiKeyFor(h.ctx, a.accountId, { scopes: ["inference"] });
    const r = await h.json("GET", "/v1/notary/receipts", { headers: bearer(narrow.token) });
    expect(r.status).toBe(403);
  });
});
