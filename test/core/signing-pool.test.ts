/**
 * Receipts signed on worker threads (src/core/signing-pool.ts via the meter's prepare hook): a
 * grouped settle with other calls in flight uses the thread's signature when the transaction
 * bills what was prepared, signs inline when it decided otherwise or when it is alone, and a
 * broken pool never costs a receipt.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { recoverMessageAddress } from "../../src/core/eip191.ts";
import { SigningPool } from "../../src/core/signing-pool.ts";
import { createAccount } from "../../src/domains/accounts/service.ts";
import { type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
let pool: SigningPool | undefined;
afterEach(() => {
  pool?.close();
  h?.close();
});

function countingPool(): { pool: SigningPool; signed: () => number } {
  const p = new SigningPool(1);
  let n = 0;
  const sign = p.sign.bind(p);
  p.sign = (key, message) => (n++, sign(key, message));
  return { pool: p, signed: () => n };
}

/** A harness whose settles sign on a counting pool, and an account with `credit` micro-USD. */
function pooled(credit: number): { counting: ReturnType<typeof countingPool>; account: string } {
  h = makeHarness();
  const counting = countingPool();
  pool = counting.pool;
  h.ctx.signingPool = pool;
  const account = createAccount(h.ctx).id;
  h.ctx.ledger.credit(account, credit, { type: "deposit" });
  return { counting, account };
}

const receiptRow = (id: string) => h.ctx.db.query<{ receipt: string; signature: string; signer: string; cost_micro_usd: number }, [string]>("SELECT receipt, signature, signer, cost_micro_usd FROM receipts WHERE id = ?").get(id)!;

describe("signing pool", () => {
  test("with another call in flight, a grouped settle mints the receipt the thread signed; it verifies like an inline one", async () => {
    const { counting, account } = pooled(10_000);
    await pool!.ready();
    const before = counting.signed();
    const other = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 500, kind: "bench" });
    const r = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 1000, kind: "bench" });
    expect(h.ctx.meter.inFlight).toBe(2);
    const s = await h.ctx.meter.settleGrouped(r, 700, { units: { tokens: 7 } });
    expect(counting.signed()).toBe(before + 1);
    const row = receiptRow(s.receipt!.id);
    expect(row.signature).toBe(s.receipt!.signature);
    expect(recoverMessageAddress(row.receipt, row.signature)).toBe(h.ctx.signer.address);
    expect(JSON.parse(Buffer.from(row.receipt, "base64url").toString()).cost_micro_usd).toBe(700);
    // Alone now: the last call's receipt is signed inline (no round trip to the thread).
    expect(h.ctx.meter.inFlight).toBe(1);
    const last = await h.ctx.meter.settleGrouped(other, 400);
    expect(counting.signed()).toBe(before + 1);
    expect(recoverMessageAddress(last.receipt!.receipt, last.receipt!.signature)).toBe(h.ctx.signer.address);
    expect(h.ctx.meter.inFlight).toBe(0);
  });

  test("a lone stream's settle still signs on the thread: the loop stays free to write the content sent before it", async () => {
    const { counting, account } = pooled(10_000);
    const r = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 1000, kind: "bench" });
    const s = await h.ctx.meter.settleGrouped(r, 600, { responding: true });
    expect(counting.signed()).toBe(1);
    expect(receiptRow(s.receipt!.id).signature).toBe(s.receipt!.signature);
  });

  test("released and settled reservations leave the count once, however they end", async () => {
    h = makeHarness();
    const account = createAccount(h.ctx).id;
    h.ctx.ledger.credit(account, 10_000, { type: "deposit" });
    const a = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 100, kind: "bench" });
    const b = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 100, kind: "bench" });
    const c = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 100, kind: "bench" });
    expect(h.ctx.meter.inFlight).toBe(3);
    await h.ctx.meter.releaseGrouped(a);
    h.ctx.meter.settle(b, 50);
    expect(h.ctx.meter.inFlight).toBe(1);
    // A second settle of the same reservation is refused and does not count it out twice.
    await expect(h.ctx.meter.settleGrouped(b, 50)).rejects.toThrow();
    expect(h.ctx.meter.inFlight).toBe(1);
    await h.ctx.meter.settleGrouped(c, 100);
    expect(h.ctx.meter.inFlight).toBe(0);
  });

  test("a cost above the hold that the balance cannot cover changes the receipt: signed again inline, still valid", async () => {
    const { counting, account } = pooled(1_300);
    // Another call in flight, so the receipt is prepared on the thread first.
    await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 100, kind: "bench" });
    const r = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 1000, kind: "bench" });
    const s = await h.ctx.meter.settleGrouped(r, 5_000);
    expect(counting.signed()).toBe(1);
    const payload = JSON.parse(Buffer.from(s.receipt!.receipt, "base64url").toString());
    expect(payload.cost_micro_usd).toBe(1_200);
    expect(payload.units.uncharged_micro_usd).toBe(3_800);
    expect(recoverMessageAddress(s.receipt!.receipt, s.receipt!.signature)).toBe(h.ctx.signer.address);
  });

  test("a pool that fails (closed) costs nothing: the receipt is signed inline", async () => {
    h = makeHarness();
    pool = new SigningPool(1);
    pool.close();
    h.ctx.signingPool = pool;
    const account = createAccount(h.ctx).id;
    h.ctx.ledger.credit(account, 10_000, { type: "deposit" });
    const r = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 1000, kind: "bench" });
    const s = await h.ctx.meter.settleGrouped(r, 700);
    expect(recoverMessageAddress(s.receipt!.receipt, s.receipt!.signature)).toBe(h.ctx.signer.address);
  });
});
