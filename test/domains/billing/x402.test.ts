/**
 * x402 against a real local chain: a 402 insufficient_credit carries terms (v1 body merged with
 * svc's error object, v2 PAYMENT-REQUIRED header); paying on the devnet and retrying with
 * X-PAYMENT or PAYMENT-SIGNATURE credits the transfer once and lets the request through; a bad,
 * pending or reused proof answers 402 payment_rejected; spend caps and the breaker get no terms.
 *
 * No billable HTTP route exists yet, so a probe app mounts one route behind the real API-key
 * guard (where the payment hook lives) and the real error handler with the real decorator,
 * and reserves through ctx.meter like every billable route will. GET /v1/credit on the real
 * app proves the hook is mounted for the product's API-key routes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { Address, Hash } from "viem";
import type { Config } from "../../../src/config.ts";
import { toChecksumAddress } from "../../../src/core/eip191.ts";
import { errorHandler } from "../../../src/core/error-handler.ts";
import { silentLogger } from "../../../src/core/log.ts";
import { issueSession } from "../../../src/domains/auth/sessions.ts";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { paymentTerms } from "../../../src/domains/billing/x402.ts";
import { mintKey } from "../../../src/domains/keys/service.ts";
import { guards } from "../../../src/guards.ts";
import { DEVNET_CHAIN_ID, type Devnet, startDevnet } from "../../support/devnet.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

const USD = 1_000_000;
const TREASURY = "0x2b5ad5c4795c026514f8317c7a215e218dccd6cf";
const PROBE_COST = 2 * USD;
const USD_UNITS = 1_000_000n; // one USDT in base units

let chain: Devnet;
let token: Address;
let alice: Address;
let carol: Address;

beforeAll(async () => {
  chain = await startDevnet();
  [, alice, , carol] = chain.accounts as [Address, Address, Address, Address];
  token = await chain.deployToken();
  for (const who of [alice, carol]) await chain.mint(token, who, 1_000n * 1_000_000n);
});

afterAll(() => chain?.stop());

let h: Harness;
afterEach(() => h?.close());

function devnetConfig(c: Config, confirmations = 1) {
  c.billing.treasury = TREASURY;
  c.chains = [{ name: "devnet", chain_id: DEVNET_CHAIN_ID, rpc_url: chain.url, usdt: token, decimals: 6, confirmations }];
}

interface Probe {
  accountId: string;
  key: string;
  call(headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
}

/** An account (alice's wallet linked) with `credit` micro-USD, an API key, and the probe route costing PROBE_COST. */
function setUp(opts: { credit?: number; confirmations?: number; config?: (c: Config) => void; key?: (accountId: string) => string } = {}): Probe {
  h = makeHarness({ config: (c) => (opts.config ? opts.config(c) : devnetConfig(c, opts.confirmations)) });
  const { account } = accountWithSession(h.ctx);
  addWallet(h.ctx, account.id, alice);
  if (opts.credit) h.ctx.ledger.credit(account.id, opts.credit, { type: "test" });
  const key = opts.key ? opts.key(account.id) : apiKeyFor(h.ctx, account.id).token;
  const app = new Elysia()
    .onError({ as: "global" }, errorHandler(silentLogger, { decorate: paymentTerms(h.ctx) }))
    .use(
      new Elysia().use(guards.apiKey(h.ctx)).post("/v1/probe", ({ principal }) => {
        const r = h.ctx.meter.reserve({ accountId: principal.accountId, keyId: principal.keyId, amount: PROBE_COST, kind: "probe" });
        h.ctx.meter.settle(r, PROBE_COST);
        return { ok: true };
      }),
    );
  return {
    accountId: account.id,
    key,
    async call(headers = {}) {
      const res = await app.handle(new Request("http://svc.test/v1/probe", { method: "POST", headers: { ...bearer(key), ...headers } }));
      return { status: res.status, body: await res.json(), headers: res.headers };
    },
  };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");
const unb64 = (s: string | null) => JSON.parse(Buffer.from(s ?? "", "base64").toString("utf8"));
const v1Proof = (txHash: string, network = "devnet") => b64({ x402Version: 1, scheme: "exact", network, payload: { tx_hash: txHash } });
const balance = (accountId: string) => h.ctx.ledger.balance(accountId).balance_micro_usd;
const credits = () => h.ctx.outbox.since(0).filter((e) => e.type === "deposit_credited");
/** A session token for an existing account (people read their deposits with one). */
const sessionFor = (accountId: string) => issueSession(h.ctx, { accountId, method: "operator" }).token;
const payTreasury = (amount: bigint, from: Address = alice, to: string = TREASURY): Promise<Hash> => chain.transfer(token, from, to as Address, amount);

describe("402 insufficient_credit carries x402 terms", () => {
  test("v1 terms beside svc's error object, one entry per chain, and the v2 PAYMENT-REQUIRED header", async () => {
    const p = setUp({
      credit: USD / 2,
      config: (c) => {
        devnetConfig(c);
        c.chains.push({ name: "wide", chain_id: 8453, rpc_url: "https://rpc.example/key", usdt: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", decimals: 18, confirmations: 10 });
      },
    });
    const r = await p.call();
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ type: "insufficient_credit", required_micro_usd: PROBE_COST, spendable_micro_usd: USD / 2 });
    expect(r.body.x402Version).toBe(1);
    expect(r.body.accepts).toEqual([
      {
        scheme: "exact",
        network: "devnet",
        maxAmountRequired: "1500000",
        resource: "/v1/probe",
        description: expect.stringContaining("X-PAYMENT"),
        mimeType: "application/json",
        payTo: toChecksumAddress(TREASURY),
        maxTimeoutSeconds: 600,
        asset: toChecksumAddress(token),
        extra: { name: "USDT", decimals: 6, chain_id: DEVNET_CHAIN_ID, confirmations: 1 },
      },
      expect.objectContaining({ network: "wide", maxAmountRequired: "1500000000000000000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", extra: { name: "USDT", decimals: 18, chain_id: 8453, confirmations: 10 } }),
    ]);
    expect(JSON.stringify(r.body)).not.toContain("rpc.example");
    const v2 = unb64(r.headers.get("payment-required"));
    expect(v2).toMatchObject({ x402Version: 2, error: r.body.error.message, resource: { url: expect.stringMatching(/^https?:\/\/.+\/v1\/probe$/), mimeType: "application/json" } });
    expect(v2.accepts).toEqual([
      { scheme: "exact", network: `eip155:${DEVNET_CHAIN_ID}`, amount: "1500000", asset: toChecksumAddress(token), payTo: toChecksumAddress(TREASURY), maxTimeoutSeconds: 600, extra: { name: "USDT", decimals: 6, chain_id: DEVNET_CHAIN_ID } },
      expect.objectContaining({ network: "eip155:8453", amount: "1500000000000000000" }),
    ]);
  });

  test("without a treasury, insufficient_credit carries no terms", async () => {
    const p = setUp({ config: (c) => devnetConfig(c) });
    h.ctx.config.billing.treasury = "";
    const r = await p.call();
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("insufficient_credit");
    expect(r.body).not.toHaveProperty("accepts");
    expect(r.body).not.toHaveProperty("x402Version");
    expect(r.headers.get("payment-required")).toBeNull();
  });

  test("spend_cap_reached and circuit_breaker_tripped carry no terms (paying lifts neither)", async () => {
    const capped = setUp({ credit: 10 * USD, key: (accountId) => apiKeyFor(h.ctx, accountId, { monthlyCap: USD }).token });
    const cap = await capped.call();
    expect(cap.status).toBe(402);
    expect(cap.body.error.type).toBe("spend_cap_reached");
    expect(cap.body).not.toHaveProperty("accepts");
    expect(cap.headers.get("payment-required")).toBeNull();
    h.close();

    const breaker = setUp({ credit: 10 * USD, key: (accountId) => mintKey(h.ctx, { accountId, breakerPerMinute: USD }).key });
    const tripped = await breaker.call();
    expect(tripped.status).toBe(402);
    expect(tripped.body.error.type).toBe("circuit_breaker_tripped");
    expect(tripped.body).not.toHaveProperty("accepts");
    expect(tripped.body).not.toHaveProperty("x402Version");
    expect(tripped.headers.get("payment-required")).toBeNull();
  });
});

describe("paying with X-PAYMENT / PAYMENT-SIGNATURE", () => {
  test("pay the amount short on-chain, retry with X-PAYMENT: credited once, the request goes through; the proof is not reusable", async () => {
    const p = setUp({ credit: USD / 2 });
    const terms = (await p.call()).body.accepts[0];
    const hash = await payTreasury(BigInt(terms.maxAmountRequired));

    const paid = await p.call({ "x-payment": v1Proof(hash) });
    expect(paid.status).toBe(200);
    expect(paid.body).toEqual({ ok: true });
    expect(unb64(paid.headers.get("x-payment-response"))).toEqual({ success: true, transaction: hash, payer: toChecksumAddress(alice), network: "devnet" });
    expect(unb64(paid.headers.get("payment-response"))).toMatchObject({ success: true, transaction: hash, network: `eip155:${DEVNET_CHAIN_ID}` });
    expect(balance(p.accountId)).toBe(0); // 0.50 + 1.50 paid − 2.00 spent
    expect(credits()).toHaveLength(1);
    expect(credits()[0]!.payload).toMatchObject({ tx_hash: hash, chain: "devnet", amount_micro_usd: 1_500_000 });
    const [row] = (await h.json("GET", "/v1/billing/deposits", { headers: bearer(sessionFor(p.accountId)) })).body;
    expect(row).toMatchObject({ source: "payment", status: "credited", amount_micro_usd: 1_500_000 });

    h.ctx.ledger.credit(p.accountId, 5 * USD, { type: "test" });
    const reused = await p.call({ "x-payment": v1Proof(hash) });
    expect(reused.status).toBe(402);
    expect(reused.body.error).toMatchObject({ type: "payment_rejected", reason: "payment_already_used" });
    expect(reused.body).not.toHaveProperty("accepts");
    expect(balance(p.accountId)).toBe(5 * USD);
    expect(credits()).toHaveLength(1);
  });

  test("PAYMENT-SIGNATURE (x402 v2, network as CAIP-2) works too", async () => {
    const p = setUp();
    const required = unb64((await p.call()).headers.get("payment-required"));
    const hash = await payTreasury(BigInt(required.accepts[0].amount));
    const paid = await p.call({ "payment-signature": b64({ x402Version: 2, resource: required.resource, accepted: required.accepts[0], payload: { tx_hash: hash } }) });
    expect(paid.status).toBe(200);
    expect(balance(p.accountId)).toBe(0);
    expect(credits()).toHaveLength(1);
  });

  test("a proof of a transfer still short of its confirmations is pending; the same proof works once confirmed", async () => {
    const p = setUp({ credit: USD, confirmations: 3 });
    const hash = await payTreasury(1_000_000n);
    const early = await p.call({ "x-payment": v1Proof(hash) });
    expect(early.status).toBe(402);
    expect(early.body.error).toMatchObject({ type: "payment_rejected", reason: "payment_pending", confirmations: 1, required_confirmations: 3 });
    expect(balance(p.accountId)).toBe(USD);
    await chain.mine(2);
    const later = await p.call({ "x-payment": v1Proof(hash) });
    expect(later.status).toBe(200);
    expect(balance(p.accountId)).toBe(0);
    expect(credits()).toHaveLength(1);
  });

  test("two requests racing with one fresh proof: one goes through, the transfer credits once", async () => {
    const p = setUp({ credit: 3 * USD });
    const hash = await payTreasury(1_000_000n);
    const results = await Promise.all([p.call({ "x-payment": v1Proof(hash) }), p.call({ "x-payment": v1Proof(hash) }), p.call({ "payment-signature": v1Proof(hash) })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402]);
    for (const r of results.filter((x) => x.status === 402)) expect(r.body.error.reason).toBe("payment_already_used");
    expect(credits()).toHaveLength(1);
    expect(balance(p.accountId)).toBe(3 * USD + USD - PROBE_COST);
  });

  test("bad proofs answer 402 payment_rejected with a reason, never 500, and credit nothing", async () => {
    const p = setUp({ credit: 10 * USD });
    const unlinked = await payTreasury(USD_UNITS, carol);
    const elsewhere = await payTreasury(USD_UNITS, alice, "0x000000000000000000000000000000000000dead");
    const cases: [Record<string, string>, string][] = [
      [{ "x-payment": "%%% not base64 %%%" }, "malformed_payment"],
      [{ "x-payment": b64("just a string") }, "malformed_payment"],
      [{ "x-payment": b64({ x402Version: 3, scheme: "exact", network: "devnet", payload: { tx_hash: unlinked } }) }, "unsupported_version"],
      [{ "x-payment": b64({ x402Version: 1, scheme: "upto", network: "devnet", payload: { tx_hash: unlinked } }) }, "unsupported_scheme"],
      [{ "x-payment": b64({ x402Version: 1, scheme: "exact", network: "devnet" }) }, "malformed_payment"],
      [{ "x-payment": b64({ x402Version: 1, scheme: "exact", network: "devnet", payload: { signature: "0x00", authorization: {} } }) }, "unsupported_payload"],
      [{ "x-payment": b64({ x402Version: 1, scheme: "exact", network: "devnet", payload: { tx_hash: "0x1234" } }) }, "malformed_payment"],
      [{ "x-payment": v1Proof(unlinked, "base") }, "unknown_network"],
      [{ "x-payment": v1Proof(unlinked, "eip155:1") }, "unknown_network"],
      [{ "x-payment": v1Proof(`0x${"56".repeat(32)}`) }, "transaction_not_found"],
      [{ "x-payment": v1Proof(unlinked) }, "sender_not_linked"],
      [{ "x-payment": v1Proof(elsewhere) }, "wrong_recipient"],
      [{ "x-payment": v1Proof(unlinked), "payment-signature": v1Proof(elsewhere) }, "malformed_payment"],
    ];
    for (const [headers, reason] of cases) {
      const r = await p.call(headers);
      expect({ reason, status: r.status }).toEqual({ reason, status: 402 });
      expect(r.body.error).toMatchObject({ type: "payment_rejected", reason });
      expect(r.body.error.message).toMatch(/^payment not accepted: /);
    }
    expect(balance(p.accountId)).toBe(10 * USD);
    expect(credits()).toHaveLength(0);
  });

  test("the hook is mounted for the app's real API-key routes (GET /v1/credit), and not on session routes", async () => {
    const p = setUp();
    const hash = await payTreasury(2_500_000n);
    const r = await h.json("GET", "/v1/credit", { headers: { ...bearer(p.key), "x-payment": v1Proof(hash) } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ balance_micro_usd: 2_500_000, spendable_micro_usd: 2_500_000 });
    expect(r.headers.get("x-payment-response")).not.toBeNull();
    const bad = await h.json("GET", "/v1/credit", { headers: { ...bearer(p.key), "x-payment": v1Proof(`0x${"78".repeat(32)}`) } });
    expect(bad.status).toBe(402);
    expect(bad.body.error.reason).toBe("transaction_not_found");

    const second = await payTreasury(USD_UNITS);
    const viaSession = await h.json("GET", "/v1/billing/deposits", { headers: { ...bearer(sessionFor(p.accountId)), "x-payment": v1Proof(second) } });
    expect(viaSession.status).toBe(200);
    expect(balance(p.accountId)).toBe(2_500_000);
  });
});
