/**
 * POST /v1/pay/requests/:id/settle on a real local chain: a request settled by a real transfer
 * once it has its confirmations, with a signed settlement receipt verified with viem; refused
 * for a wrong amount, payee or token, a transfer older than the request, an expired request,
 * and a transfer that already settled another request — also when two settles race for it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { Address } from "viem";
import { toChecksumAddress } from "../../../src/core/eip191.ts";
import { DEVNET_CHAIN_ID, type Devnet, startDevnet } from "../../support/devnet.ts";
import { createRequest, devnetChain, getRequest, payWorld, type PayWorld, settle, USDT, verifiedPayload } from "./pay-support.ts";

let chain: Devnet;
let token: Address;
let otherToken: Address;
let payee: Address;
let payer: Address;
let stranger: Address;

beforeAll(async () => {
  chain = await startDevnet();
  [, payee, payer, stranger] = chain.accounts as [Address, Address, Address, Address];
  token = await chain.deployToken();
  otherToken = await chain.deployToken();
  await chain.mint(token, payer, 1_000n * USDT);
  await chain.mint(otherToken, payer, 1_000n * USDT);
});
afterAll(() => chain?.stop());

let w: PayWorld | undefined;
afterEach(() => {
  w?.h.close();
  w = undefined;
});

const world = () => (w = payWorld(devnetChain(chain, token), payee));
const pay = (amount: bigint, to: Address = payee, via: Address = token) => chain.transfer(via, payer, to, amount);
/** An open request for `amount` USDT (whole tokens). */
async function request(w: PayWorld, amount = 5n) {
  const r = await createRequest(w, { amount: Number(amount * USDT) });
  expect(r.status).toBe(201);
  return r.body;
}

describe("settling with a real transfer", () => {
  test("waits for the confirmations, then answers a signed settlement receipt bound to the request", async () => {
    const w = world();
    const req = await request(w, 5n);
    const hash = await pay(6n * USDT); // more than asked is fine

    const early = await settle(w, req.id, hash);
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ type: "not_enough_confirmations", confirmations: 1, required_confirmations: 3 });
    expect((await getRequest(w, req.id)).body).toMatchObject({ status: "open", settlement: null });

    await chain.mine(2);
    const done = await settle(w, req.id, hash);
    expect(done.status).toBe(200);
    const receipt = await chain.client.getTransactionReceipt({ hash });
    expect(done.body).toMatchObject({
      id: req.id,
      status: "settled",
      settlement: {
        tx_hash: hash,
        from: toChecksumAddress(payer),
        amount_units: "6000000",
        block_number: Number(receipt.blockNumber),
        confirmations: 3,
        required_confirmations: 3,
        settled_at: new Date(w.h.clock.now()).toISOString(),
      },
    });
    const payload = await verifiedPayload(w.h, done.body.settlement.receipt);
    expect(payload).toEqual({
      v: 1,
      type: "payment_settlement",
      request_id: req.id,
      request_sha256: createHash("sha256").update(req.request.statement).digest("hex"),
      account: w.accountId,
      chain: "devnet",
      chain_id: DEVNET_CHAIN_ID,
      asset: "USDT",
      token: toChecksumAddress(token),
      payee: toChecksumAddress(payee),
      from: toChecksumAddress(payer),
      requested_units: "5000000",
      amount_units: "6000000",
      tx_hash: hash,
      log_index: Number(receipt.logs[0]!.logIndex),
      block_number: Number(receipt.blockNumber),
      block_hash: receipt.blockHash,
      confirmations: 3,
      required_confirmations: 3,
      issued_at: done.body.settlement.settled_at,
    });
    expect(done.body.settlement.log_index).toBe(payload.log_index);

    // The request itself is unchanged, and GET shows the settlement.
    const got = await getRequest(w, req.id);
    expect(got.body).toEqual(done.body);
    expect(got.body.request).toEqual(req.request);

    // Again with the same transaction: the same settlement (any case of hex); with another: refused.
    w.h.clock.advance(1000);
    const again = await settle(w, req.id, hash.toUpperCase().replace("0X", "0x"));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(done.body);
    const other = await pay(5n * USDT);
    await chain.mine(3);
    const second = await settle(w, req.id, other);
    expect([second.status, second.body.error.type]).toEqual([409, "request_already_settled"]);
  });

  test("a transfer settles one request once: a reused transaction is refused", async () => {
    const w = world();
    const first = await request(w, 2n);
    const second = await request(w, 2n);
    const hash = await pay(2n * USDT);
    await chain.mine(2);
    expect((await settle(w, first.id, hash)).status).toBe(200);
    const reused = await settle(w, second.id, hash);
    expect(reused.status).toBe(409);
    expect(reused.body.error.type).toBe("transaction_already_used");
    expect((await getRequest(w, second.id)).body).toMatchObject({ status: "open", settlement: null });
  });

  test("two settles racing for one transfer: exactly one wins", async () => {
    const w = world();
    const reqs = [await request(w, 1n), await request(w, 1n), await request(w, 1n)];
    const hash = await pay(1n * USDT);
    await chain.mine(2);
    const answers = await Promise.all(reqs.map((r) => settle(w, r.id, hash)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body.error.type).toBe("transaction_already_used");
    expect(w.h.ctx.db.query("SELECT count(*) AS n FROM pay_settlements").get()).toEqual({ n: 1 });
  });
});

describe("refusals", () => {
  test("a wrong amount, payee or token is refused (422) and leaves the request open", async () => {
    const w = world();
    const req = await request(w, 5n);
    const short = await pay(5n * USDT - 1n);
    const elsewhere = await pay(5n * USDT, stranger);
    const wrongToken = await pay(5n * USDT, payee, otherToken);
    await chain.mine(3);

    const a = await settle(w, req.id, short);
    expect(a.status).toBe(422);
    expect(a.body.error).toMatchObject({ type: "amount_too_small", amount_units: "4999999", required_units: "5000000" });
    const b = await settle(w, req.id, elsewhere);
    expect(b.status).toBe(422);
    expect(b.body.error).toMatchObject({ type: "wrong_payee", to: toChecksumAddress(stranger), payee: toChecksumAddress(payee) });
    const c = await settle(w, req.id, wrongToken);
    expect(c.status).toBe(422);
    expect(c.body.error).toMatchObject({ type: "wrong_token", token: toChecksumAddress(otherToken), expected_token: toChecksumAddress(token) });
    expect((await getRequest(w, req.id)).body.status).toBe("open");
  });

  test("a transfer mined before the request was made does not settle it", async () => {
    const w = world();
    const old = await pay(5n * USDT);
    await chain.mine(3);
    const req = await request(w, 5n);
    const r = await settle(w, req.id, old);
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ type: "transfer_before_request", after_block: req.after_block });
  });

  test("an expired request cannot be settled (409 request_expired)", async () => {
    const w = world();
    const req = await request(w, 1n);
    const hash = await pay(1n * USDT);
    await chain.mine(3);
    w.h.clock.advance(7 * 86_400_000 + 1);
    const r = await settle(w, req.id, hash);
    expect([r.status, r.body.error.type]).toEqual([409, "request_expired"]);
  });

  test("an unknown, failed or malformed transaction", async () => {
    const w = world();
    const req = await request(w, 1n);
    const unknown = await settle(w, req.id, `0x${"ab".repeat(32)}`);
    expect([unknown.status, unknown.body.error.type]).toEqual([404, "transaction_not_found"]);
    // More than the payer holds: the transfer reverts (status 0).
    const reverted = await chain.transfer(token, payer, payee, 10_000n * USDT, { gas: 100_000n });
    const failed = await settle(w, req.id, reverted);
    expect([failed.status, failed.body.error.type]).toEqual([400, "transaction_failed"]);
    for (const tx_hash of ["0x1234", "not a hash", `0x${"zz".repeat(32)}`, 7]) {
      const r = await w.h.json("POST", `/v1/pay/requests/${req.id}/settle`, { ...w.auth, body: { tx_hash } });
      expect([r.status, r.body.error.param]).toEqual([400, "tx_hash"]);
    }
    const extra = await w.h.json("POST", `/v1/pay/requests/${req.id}/settle`, { ...w.auth, body: { tx_hash: `0x${"ab".repeat(32)}`, chain: "devnet" } });
    expect([extra.status, extra.body.error.param]).toEqual([400, "chain"]);
  });

  test("a chain removed from the configuration after the request was made (409 chain_not_configured)", async () => {
    const w = world();
    const req = await request(w, 1n);
    w.h.ctx.config.chains = [{ ...w.h.ctx.config.chains[0]!, name: "renamed" }];
    const r = await settle(w, req.id, `0x${"ab".repeat(32)}`);
    expect([r.status, r.body.error.type]).toEqual([409, "chain_not_configured"]);
  });
});
