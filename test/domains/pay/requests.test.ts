/**
 * POST /v1/pay/requests and GET /v1/pay/requests/:id: the signed request (verified with viem),
 * its fields, every refusal with the field named, the linked-payee rule, the scope, and another
 * account's id answering exactly like an unknown one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Address } from "viem";
import { toChecksumAddress } from "../../../src/core/eip191.ts";
import { apiKeyFor } from "../../support/fixtures.ts";
import { DEVNET_CHAIN_ID, type Devnet, startDevnet } from "../../support/devnet.ts";
import { bearer, makeHarness, type Harness } from "../../support/harness.ts";
import { createRequest, devnetChain, getRequest, otherAccount, payWorld, type PayWorld, TREASURY, verifiedPayload } from "./pay-support.ts";

let chain: Devnet;
let token: Address;
let payee: Address;
let stranger: Address;

beforeAll(async () => {
  chain = await startDevnet();
  [, payee, , stranger] = chain.accounts as [Address, Address, Address, Address];
  token = await chain.deployToken();
});
afterAll(() => chain?.stop());

let w: PayWorld | undefined;
let extra: Harness | undefined;
afterEach(() => {
  w?.h.close();
  extra?.close();
  w = extra = undefined;
});

const world = () => (w = payWorld(devnetChain(chain, token), payee));
const DAY = 86_400_000;

describe("POST /v1/pay/requests", () => {
  test("answers a request signed by the deployment's signer, in micro-USD and token units, readable with GET", async () => {
    const w = world();
    const head = await chain.blockNumber();
    const expiresAt = new Date(w.h.clock.now() + 2 * DAY).toISOString();
    const r = await createRequest(w, { amount: 12_500_000, memo: "invoice 42", expires_at: expiresAt });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      status: "open",
      chain: "devnet",
      chain_id: DEVNET_CHAIN_ID,
      asset: "USDT",
      token: toChecksumAddress(token),
      decimals: 6,
      amount_micro_usd: 12_500_000,
      amount_units: "12500000",
      payee: toChecksumAddress(payee),
      memo: "invoice 42",
      after_block: Number(head),
      expires_at: expiresAt,
      created_at: new Date(w.h.clock.now()).toISOString(),
      settlement: null,
    });
    expect(r.body.id).toMatch(/^payreq_/);

    const payload = await verifiedPayload(w.h, r.body.request);
    expect(payload).toEqual({
      v: 1,
      type: "payment_request",
      id: r.body.id,
      account: w.accountId,
      chain: "devnet",
      chain_id: DEVNET_CHAIN_ID,
      asset: "USDT",
      token: toChecksumAddress(token),
      decimals: 6,
      amount_micro_usd: 12_500_000,
      amount_units: "12500000",
      payee: toChecksumAddress(payee),
      memo: "invoice 42",
      after_block: Number(head),
      issued_at: r.body.created_at,
      expires_at: expiresAt,
    });

    const got = await getRequest(w, r.body.id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
  });

  test("defaults: no memo, expiry in 7 days; an 18-decimal token gets its amount scaled; expired once the time passes", async () => {
    w = payWorld(devnetChain(chain, token, { decimals: 18 }), payee);
    const r = await createRequest(w, { amount: 1_000_001, asset: "usdt" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ memo: null, decimals: 18, amount_units: "1000001000000000000", expires_at: new Date(w.h.clock.now() + 7 * DAY).toISOString() });
    expect((await verifiedPayload(w.h, r.body.request)).memo).toBeNull();
    w.h.clock.advance(7 * DAY + 1);
    expect((await getRequest(w, r.body.id)).body.status).toBe("expired");
  });

  test("bad input is refused with the field named; nothing is stored", async () => {
    const w = world();
    const ok = { amount: 1_000_000 };
    const now = w.h.clock.now();
    const cases: [Record<string, unknown>, string][] = [
      [{ amount: 0 }, "amount"],
      [{ amount: -5 }, "amount"],
      [{ amount: 1.5 }, "amount"],
      [{ amount: "1000000" }, "amount"],
      [{ amount: 1_000_000_000_000_001 }, "amount"],
      [{ asset: "USDT", chain: "devnet", payee }, "amount"],
      [{ ...ok, asset: "ETH" }, "asset"],
      [{ ...ok, asset: "" }, "asset"],
      [{ ...ok, chain: "mainnet" }, "chain"],
      [{ ...ok, chain: "" }, "chain"],
      [{ ...ok, payee: "0x1234" }, "payee"],
      [{ ...ok, payee: "not an address at all, no........" }, "payee"],
      [{ ...ok, payee: TREASURY }, "payee"],
      [{ ...ok, memo: "" }, "memo"],
      [{ ...ok, memo: "m".repeat(501) }, "memo"],
      [{ ...ok, memo: 7 }, "memo"],
      [{ ...ok, expires_at: "tomorrow" }, "expires_at"],
      [{ ...ok, expires_at: "2026-11-22T00:00:00" }, "expires_at"],
      [{ ...ok, expires_at: new Date(now - 1000).toISOString() }, "expires_at"],
      [{ ...ok, expires_at: new Date(now).toISOString() }, "expires_at"],
      [{ ...ok, expires_at: new Date(now + 91 * DAY).toISOString() }, "expires_at"],
      [{ ...ok, to: payee }, "to"],
    ];
    for (const [body, param] of cases) {
      const r = await createRequest(w, body);
      expect([param, r.status, r.body.error?.param]).toEqual([param, 400, param]);
    }
    expect(w.h.ctx.db.query("SELECT count(*) AS n FROM pay_requests").get()).toEqual({ n: 0 });
  });

  test("the payee must be a wallet linked to the account (403 payee_not_linked)", async () => {
    const w = world();
    const r = await createRequest(w, { amount: 1_000_000, payee: stranger });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: "payee_not_linked", payee: toChecksumAddress(stranger) });
    // Lowercase or checksummed, the linked wallet is the same wallet.
    expect((await createRequest(w, { amount: 1_000_000, payee: payee.toLowerCase() })).status).toBe(201);
  });

  test("at most 1000 open requests per account (429 too_many_open_requests); expired ones do not count", async () => {
    const w = world();
    const first = await createRequest(w, { amount: 1 });
    expect(first.status).toBe(201);
    // 998 more copies of the first, straight into the table: creating each through the route would only be slower.
    w.h.ctx.db.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 998)
       INSERT INTO pay_requests (id, account_id, key_id, chain, chain_id, token, payee, decimals, amount_micro_usd, amount_units, after_block, statement, signature, signer, expires_at, created_at)
       SELECT 'payreq_copy' || i, account_id, key_id, chain, chain_id, token, payee, decimals, amount_micro_usd, amount_units, after_block, statement, signature, signer, expires_at, created_at
       FROM pay_requests, n WHERE id = ?`,
      [first.body.id],
    );
    expect((await createRequest(w, { amount: 1 })).status).toBe(201);
    const full = await createRequest(w, { amount: 1 });
    expect(full.status).toBe(429);
    expect(full.body.error).toMatchObject({ type: "too_many_open_requests", cap: 1000 });
    // Another account is not affected.
    const other = otherAccount(w.h, stranger);
    expect((await createRequest({ ...w, payee: stranger }, { amount: 1 }, other.auth)).status).toBe(201);
    w.h.clock.advance(7 * DAY + 1);
    expect((await createRequest(w, { amount: 1 })).status).toBe(201);
  });

  test("a key without the pay scope is refused (403 missing_scope)", async () => {
    const w = world();
    const key = apiKeyFor(w.h.ctx, w.accountId, { scopes: ["inference"] });
    const r = await createRequest(w, { amount: 1_000_000 }, { headers: bearer(key.token) });
    expect([r.status, r.body.error.type, r.body.error.scope]).toEqual([403, "missing_scope", "pay"]);
  });

  test("without any chain configured: 501; with its node unreachable: 503 chain_unavailable naming the chain, never the URL", async () => {
    extra = makeHarness({ config: (c) => (c.chains = []) });
    const none = await extra.json("POST", "/v1/pay/requests", { ...otherAccount(extra).auth, body: { amount: 1, asset: "USDT", chain: "devnet", payee } });
    expect([none.status, none.body.error.type]).toEqual([501, "not_implemented"]);

    w = payWorld(devnetChain(chain, token, { rpc_url: "http://127.0.0.1:9/secret-key-path" }), payee);
    const down = await createRequest(w, { amount: 1 });
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({ type: "chain_unavailable", chain: "devnet" });
    expect(JSON.stringify(down.body)).not.toContain("secret-key-path");
    expect(down.headers.get("retry-after")).toBe("30");
  });

  test("a node on another chain id is refused (502 wrong_chain)", async () => {
    w = payWorld(devnetChain(chain, token, { chain_id: 1 }), payee);
    const r = await createRequest(w, { amount: 1 });
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({ type: "wrong_chain", expected_chain_id: 1, node_chain_id: DEVNET_CHAIN_ID });
  });
});

describe("GET /v1/pay/requests/:id", () => {
  test("another account's request answers exactly like an unknown id (404)", async () => {
    const w = world();
    const mine = await createRequest(w, { amount: 1_000_000 });
    const other = otherAccount(w.h);
    const theirs = await getRequest(w, mine.body.id, other.auth);
    const unknown = await getRequest(w, "payreq_doesnotexist", other.auth);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(unknown.body);
    expect(theirs.body.error.type).toBe("not_found");
    // Nor can they settle it.
    const settleTheirs = await w.h.json("POST", `/v1/pay/requests/${mine.body.id}/settle`, { ...other.auth, body: { tx_hash: `0x${"ab".repeat(32)}` } });
    const settleUnknown = await w.h.json("POST", "/v1/pay/requests/payreq_doesnotexist/settle", { ...other.auth, body: { tx_hash: `0x${"ab".repeat(32)}` } });
    expect(settleTheirs.status).toBe(404);
    expect(settleTheirs.body).toEqual(settleUnknown.body);
  });
});
