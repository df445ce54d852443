/**
 * Receipts signed on worker threads (src/core/signing-pool.ts via the meter's prepare hook): a
 * grouped settle uses the thread's signature when the transaction bills what was prepared, signs
 * inline when it decided otherwise, and a broken pool never costs a receipt.
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

const receiptRow = (id: string) => h.ctx.db.query<{ receipt: string; signature: string; signer: string; cost_micro_usd: number }, [string]>("SELECT receipt, signature, signer, cost_micro_usd FROM receipts WHERE id = ?").get(id)!;

describe("signing pool", () => {
  test("a grouped settle mints the receipt the thread signed; it verifies like an inline one", async () => {
    h = makeHarness();
    const counting = countingPool();
    pool = counting.pool;
    await pool.ready();
    h.ctx.signingPool = pool;
    const account = createAccount(h.ctx).id;
    h.ctx.ledger.credit(account, 10_000, { type: "deposit" });
    const before = counting.signed();
    const r = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 1000, kind: "bench" });
    const s = await h.ctx.meter.settleGrouped(r, 700, { units: { tokens: 7 } });
    expect(counting.signed()).toBe(before + 1);
    const row = receiptRow(s.receipt!.id);
    expect(row.signature).toBe(s.receipt!.signature);
    expect(recoverMessageAddress(row.receipt, row.signature)).toBe(h.ctx.signer.address);
    expect(JSON.parse(Buffer.from(row.receipt, "base64url").toString()).cost_micro_usd).toBe(700);
  });

  test("a cost above the hold that the balance cannot cover changes the receipt: signed again inline, still valid", async () => {
    h = makeHarness();
    pool = new SigningPool(1);
    h.ctx.signingPool = pool;
    const account = createAccount(h.ctx).id;
    h.ctx.ledger.credit(account, 1_200, { type: "deposit" });
    const r = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 1000, kind: "bench" });
    const s = await h.ctx.meter.settleGrouped(r, 5_000);
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
