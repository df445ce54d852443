/**
 * x402 purchases on a real local chain (anvil, test/support/devnet.ts): 402 terms naming the
 * seller's payee, the buyer's real TestUSDT transfer to the seller, the call forwarded to a
 * stand-in upstream (or answered by the seller's chat model on the stand-in LLM), the signed
 * receipt verified with viem, the seller's webhook receiving service_called, and every refusal:
 * not yet confirmed, reused (also by two racing calls), underpaid, paid to someone else, unknown
 * transaction, disabled service; a failing upstream releases the payment for a retry.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { type Address, type Hex, recoverMessageAddress } from "viem";
import { toChecksumAddress } from "../../../src/core/eip191.ts";
import { parseInferenceSection } from "../../../src/domains/inference/config.ts";
import { registerWebhookJobs } from "../../../src/domains/webhooks/delivery.ts";
import { DEVNET_CHAIN_ID, type Devnet, startDevnet } from "../../support/devnet.ts";
import { type Harness, makeHarness } from "../../support/harness.ts";
import { type Receiver, startReceiver } from "../../support/receiver.ts";
import { startUpstream, type UpstreamStub } from "../../support/upstream.ts";
import { createService, marketConfig, seller, type Seller, xPayment } from "./services-support.ts";

const USDT = 1_000_000n;
const PRICE = 2_000_000; // micro-USD: 2 USDT

let chain: Devnet;
let token: Address;
let payee: Address;
let buyer: Address;
let stranger: Address;
let llm: UpstreamStub;
let rx: Receiver;

/** The stand-in seller backend: echoes what it got, or fails while `failing`. */
let failing = false;
const seen: { body: string; headers: Record<string, string> }[] = [];
const backend = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = await req.text();
    seen.push({ body, headers: Object.fromEntries(req.headers) });
    if (failing) return new Response("down", { status: 503 });
    return Response.json({ echo: JSON.parse(body), served_by: "stand-in" });
  },
});
const UPSTREAM = `http://127.0.0.1:${backend.port}/call`;

beforeAll(async () => {
  chain = await startDevnet();
  [, payee, buyer, stranger] = chain.accounts as [Address, Address, Address, Address];
  token = await chain.deployToken();
  await chain.mint(token, buyer, 1_000n * USDT);
  llm = startUpstream({ apiKey: "upstream-key" });
  rx = await startReceiver();
});
afterAll(async () => {
  backend.stop(true);
  llm?.stop();
  await rx?.close();
  await chain?.stop();
});

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
  failing = false;
});

process.env.SVC_TEST_SERVICES_LLM_KEY = "upstream-key";
function world(): { h: Harness; s: Seller } {
  h = makeHarness({
    config: marketConfig({ url: chain.url, token }, (c) => {
      Object.assign(
        c,
        parseInferenceSection({
          providers: [{ name: "oa", kind: "openai", base_url: llm.openaiBaseUrl, api_key_env: "SVC_TEST_SERVICES_LLM_KEY", timeout_secs: 5 }],
          models: [{ id: "gpt-test", provider: "oa", upstream: "stub-gpt", input_micro_usd_per_mtok: 1_000_000, output_micro_usd_per_mtok: 2_000_000, max_output: 100 }],
        }),
      );
    }),
  });
  return { h, s: seller(h, payee) };
}

const invoke = (h: Harness, slug: string, body: unknown, headers: Record<string, string> = {}) => h.json("POST", `/v1/services/${slug}/invoke`, { headers, body });
const pay = (amount: bigint, to: Address = payee) => chain.transfer(token, buyer, to, amount);
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A statement checked as a buyer would: viem recovers the signer, which must be the deployment's published one. */
async function verifiedPayload(h: Harness, signed: { statement: string; signature: string; signer: string }) {
  const recovered = await recoverMessageAddress({ message: signed.statement, signature: signed.signature as Hex });
  const published = (await h.json("GET", "/v1/receipts/pubkey")).body.address;
  expect(recovered).toBe(published);
  expect(signed.signer).toBe(published);
  return JSON.parse(Buffer.from(signed.statement, "base64url").toString("utf8"));
}

describe("a real x402 purchase", () => {
  test("402 terms, the buyer pays the seller on chain, the call is forwarded and receipted; the seller's webhook hears of it; the payment pays once", async () => {
    const { h, s } = world();
    registerWebhookJobs(h.ctx);
    const hook = await h.json("POST", "/v1/webhooks", { ...s.auth, body: { url: rx.url("/seller"), events: ["service_called"] } });
    expect(hook.status).toBe(201);
    rx.setSecret("/seller", hook.body.secret);
    const made = await createService(h, s, { slug: "echo", upstream_url: UPSTREAM, price_micro_usd: PRICE });
    expect(made.status).toBe(201);

    const terms = await invoke(h, "echo", { q: "hello" });
    expect(terms.status).toBe(402);
    const option = terms.body.accepts[0];
    expect(option).toMatchObject({ network: "devnet", maxAmountRequired: "2000000", payTo: toChecksumAddress(payee), asset: toChecksumAddress(token) });

    const before = await chain.balanceOf(token, payee);
    const hash = await pay(BigInt(option.maxAmountRequired), option.payTo);
    expect(await chain.balanceOf(token, payee)).toBe(before + 2n * USDT); // the seller holds the money; svc never did

    const early = await invoke(h, "echo", { q: "hello" }, xPayment(hash));
    expect(early.status).toBe(402);
    expect(early.body.error).toMatchObject({ type: "payment_rejected", reason: "payment_pending", confirmations: 1, required_confirmations: 3 });
    expect(seen).toHaveLength(0);

    await chain.mine(2);
    const body = { q: "hello", n: [1, 2, 3] };
    const done = await invoke(h, "echo", body, xPayment(hash));
    expect(done.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body).toBe(JSON.stringify(body));
    expect(seen[0]!.headers).toMatchObject({ "x-svc-service": "echo", "x-svc-call-id": done.body.call_id, "content-type": "application/json" });
    expect(done.body).toMatchObject({
      service_id: made.body.id,
      slug: "echo",
      status: "completed",
      result: { type: "upstream", http_status: 200, content_type: "application/json", body: { echo: body, served_by: "stand-in" } },
      payment: { chain: "devnet", chain_id: DEVNET_CHAIN_ID, tx_hash: hash, payer: toChecksumAddress(buyer), amount_units: "2000000", amount_micro_usd: PRICE },
      request_sha256: sha256(JSON.stringify(body)),
      response_sha256: sha256(JSON.stringify({ echo: body, served_by: "stand-in" })),
    });
    const settlement = JSON.parse(Buffer.from(done.headers.get("x-payment-response")!, "base64").toString("utf8"));
    expect(settlement).toEqual({ success: true, transaction: hash, payer: toChecksumAddress(buyer), network: "devnet" });

    const receipt = await chain.client.getTransactionReceipt({ hash });
    const payload = await verifiedPayload(h, done.body.receipt);
    expect(payload).toEqual({
      v: 1,
      type: "service_call",
      call_id: done.body.call_id,
      service_id: made.body.id,
      slug: "echo",
      status: "completed",
      price_micro_usd: PRICE,
      amount_micro_usd: PRICE,
      amount_units: "2000000",
      chain: "devnet",
      chain_id: DEVNET_CHAIN_ID,
      token: toChecksumAddress(token),
      payee: toChecksumAddress(payee),
      payer: toChecksumAddress(buyer),
      tx_hash: hash,
      log_index: expect.any(Number),
      block_number: Number(receipt.blockNumber),
      http_status: 200,
      latency_ms: done.body.latency_ms,
      request_sha256: done.body.request_sha256,
      response_sha256: done.body.response_sha256,
      issued_at: new Date(h.clock.now()).toISOString(),
    });
    expect(JSON.stringify(payload)).not.toContain("hello");

    // The same transfer never pays twice.
    const reused = await invoke(h, "echo", body, xPayment(hash));
    expect(reused.status).toBe(402);
    expect(reused.body.error).toMatchObject({ type: "payment_rejected", reason: "payment_already_used" });
    expect(reused.body.accepts).toHaveLength(1);
    expect(seen).toHaveLength(1);

    // The seller's view: the call, its payment and receipt, never its content.
    const calls = await h.json("GET", "/v1/services/manage/echo/calls", s.auth);
    expect(calls.status).toBe(200);
    expect(calls.body.calls).toHaveLength(1);
    expect(calls.body.calls[0]).toMatchObject({ id: done.body.call_id, status: "completed", tx_hash: hash, amount_micro_usd: PRICE, http_status: 200, receipt: done.body.receipt, error: null });
    expect(JSON.stringify(calls.body)).not.toContain("hello");
    expect((await h.json("GET", "/v1/services/directory")).body.services[0]).toMatchObject({ slug: "echo", calls_completed: 1 });

    await h.ctx.scheduler.runDue();
    const got = rx.received.filter((r) => r.path === "/seller" && r.json?.type === "service_called");
    expect(got).toHaveLength(1);
    expect(got[0]!.signatureValid).toBe(true);
    expect(got[0]!.json.data).toEqual({
      service_id: made.body.id,
      slug: "echo",
      call_id: done.body.call_id,
      status: "completed",
      price_micro_usd: PRICE,
      amount_micro_usd: PRICE,
      amount_units: "2000000",
      chain: "devnet",
      chain_id: DEVNET_CHAIN_ID,
      tx_hash: hash,
      log_index: payload.log_index,
      payer: toChecksumAddress(buyer),
      http_status: 200,
      latency_ms: done.body.latency_ms,
    });
    expect(got[0]!.body).not.toContain("hello");
  });

  test("two calls racing on one transfer: one is served, the other refused", async () => {
    const { h, s } = world();
    await createService(h, s, { slug: "race", upstream_url: UPSTREAM, price_micro_usd: PRICE });
    const hash = await pay(2n * USDT);
    await chain.mine(2);
    const before = seen.length;
    const [a, b] = await Promise.all([invoke(h, "race", { i: 1 }, xPayment(hash)), invoke(h, "race", { i: 2 }, xPayment(hash))]);
    expect([a.status, b.status].sort()).toEqual([200, 402]);
    expect((a.status === 402 ? a : b).body.error.reason).toBe("payment_already_used");
    expect(seen.length - before).toBe(1);
  });

  test("underpaid, paid to someone else, or no such transaction: refused, nothing forwarded", async () => {
    const { h, s } = world();
    await createService(h, s, { slug: "echo", upstream_url: UPSTREAM, price_micro_usd: PRICE });
    const short = await pay(2n * USDT - 1n);
    const elsewhere = await pay(5n * USDT, stranger);
    await chain.mine(3);
    const before = seen.length;

    const under = await invoke(h, "echo", {}, xPayment(short));
    expect(under.status).toBe(402);
    expect(under.body.error).toMatchObject({ type: "payment_rejected", reason: "amount_too_small", amount_units: "1999999", required_units: "2000000" });
    const wrong = await invoke(h, "echo", {}, xPayment(elsewhere));
    expect(wrong.body.error).toMatchObject({ type: "payment_rejected", reason: "wrong_payee" });
    const missing = await invoke(h, "echo", {}, xPayment(`0x${"ee".repeat(32)}`));
    expect(missing.body.error).toMatchObject({ type: "payment_rejected", reason: "transaction_not_found" });
    // CAIP-2 names the network too (x402 v2 proof).
    const v2 = { "payment-signature": Buffer.from(JSON.stringify({ x402Version: 2, accepted: { scheme: "exact", network: `eip155:${DEVNET_CHAIN_ID}` }, payload: { tx_hash: short } })).toString("base64") };
    expect((await invoke(h, "echo", {}, v2)).body.error.reason).toBe("amount_too_small");
    expect(seen.length).toBe(before);
  });

  test("a failing upstream fails the call and releases the payment: the same proof works once the upstream is back", async () => {
    const { h, s } = world();
    await createService(h, s, { slug: "flaky", upstream_url: UPSTREAM, price_micro_usd: PRICE });
    const hash = await pay(2n * USDT);
    await chain.mine(2);
    failing = true;
    const failed = await invoke(h, "flaky", { x: 1 }, xPayment(hash));
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatchObject({ type: "service_call_failed", reason: "the upstream answered HTTP 503" });
    failing = false;
    const retried = await invoke(h, "flaky", { x: 1 }, xPayment(hash));
    expect(retried.status).toBe(200);
    const calls = (await h.json("GET", "/v1/services/manage/flaky/calls", s.auth)).body.calls;
    expect(calls.map((c: { status: string }) => c.status)).toEqual(["completed", "failed"]);
    expect(calls[1]).toMatchObject({ http_status: 503, error: "the upstream answered HTTP 503", receipt: null });
  });

  test("a disabled service answers 404 even to a valid payment, which stays unspent", async () => {
    const { h, s } = world();
    await createService(h, s, { slug: "paused", upstream_url: UPSTREAM, price_micro_usd: PRICE });
    const hash = await pay(2n * USDT);
    await chain.mine(2);
    await h.json("PATCH", "/v1/services/manage/paused", { ...s.auth, body: { enabled: false } });
    const off = await invoke(h, "paused", {}, xPayment(hash));
    expect(off.status).toBe(404);
    expect(off.body).toEqual((await invoke(h, "nothing-here", {}, xPayment(hash))).body);
    await h.json("PATCH", "/v1/services/manage/paused", { ...s.auth, body: { enabled: true } });
    expect((await invoke(h, "paused", {}, xPayment(hash))).status).toBe(200);
  });

  test("a handler service is answered by the seller's chat model, billed to the seller's credit", async () => {
    const { h, s } = world();
    h.ctx.ledger.credit(s.accountId, 10_000_000, { type: "deposit" });
    await createService(h, s, { slug: "oracle", handler: "gpt-test", price_micro_usd: 1_000_000 });
    const hash = await pay(USDT);
    await chain.mine(2);
    const before = h.ctx.ledger.balance(s.accountId).balance_micro_usd;
    const r = await invoke(h, "oracle", { input: "say it [[say forty-two]]" }, xPayment(hash));
    expect(r.status).toBe(200);
    expect(r.body.result).toEqual({ type: "handler", model: "gpt-test", text: "forty-two" });
    expect(r.body.response_sha256).toBe(sha256("forty-two"));
    const payload = await verifiedPayload(h, r.body.receipt);
    expect(payload).toMatchObject({ type: "service_call", slug: "oracle", http_status: null, amount_units: "1000000" });
    expect(h.ctx.ledger.balance(s.accountId).balance_micro_usd).toBeLessThan(before);
  });
});
