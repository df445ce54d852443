import { afterEach, describe, expect, test } from "bun:test";
import { ApiError } from "../../src/core/errors.ts";
import { InsufficientCredit } from "../../src/core/ledger.ts";
import { MAX_MICRO_USD } from "../../src/core/money.ts";
import { createAccount } from "../../src/domains/accounts/service.ts";
import { type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const entries = (h: Harness, account: string) =>
  h.ctx.db
    .query<{ kind: string; amount_micro_usd: number; balance_after_micro_usd: number; held_after_micro_usd: number }, [string]>(
      "SELECT kind, amount_micro_usd, balance_after_micro_usd, held_after_micro_usd FROM ledger_entries WHERE account_id = ? ORDER BY seq",
    )
    .all(account);

describe("ledger", () => {
  test("credit, hold, capture and release keep running totals; spendable = balance − held", () => {
    h = makeHarness();
    const { id } = createAccount(h.ctx);
    const L = h.ctx.ledger;
    L.credit(id, 10_000_000, { type: "deposit", id: "dep_1" });
    const hold = L.hold(id, 3_000_000, { expiresAt: h.clock.now() + 60_000, purpose: "inference" });
    expect(L.balance(id)).toEqual({ balance_micro_usd: 10_000_000, held_micro_usd: 3_000_000, spendable_micro_usd: 7_000_000 });
    const { debit, release } = L.capture(hold.id, 1_250_000, { type: "usage", id: "call_1" });
    expect(debit?.amount_micro_usd).toBe(1_250_000);
    expect(release?.amount_micro_usd).toBe(1_750_000);
    expect(L.balance(id)).toEqual({ balance_micro_usd: 8_750_000, held_micro_usd: 0, spendable_micro_usd: 8_750_000 });
    const h2 = L.hold(id, 500_000, { expiresAt: h.clock.now() });
    L.release(h2.id);
    L.debit(id, 750_000, { type: "subscription" });
    L.adjust(id, -1_000_000, { memo: "operator correction" });
    L.adjust(id, 250_000, { memo: "goodwill" });
    expect(L.balance(id).balance_micro_usd).toBe(7_250_000);

    // Replaying the entries reproduces the totals after each one.
    let balance = 0;
    let held = 0;
    for (const e of entries(h, id)) {
      if (e.kind === "credit") balance += e.amount_micro_usd;
      if (e.kind === "adjustment") balance += e.amount_micro_usd;
      if (e.kind === "debit") {
        balance -= e.amount_micro_usd;
        if (e.held_after_micro_usd < held) held -= e.amount_micro_usd; // a capture spends held credit
      }
      if (e.kind === "hold") held += e.amount_micro_usd;
      if (e.kind === "release") held -= e.amount_micro_usd;
      expect([e.balance_after_micro_usd, e.held_after_micro_usd]).toEqual([balance, held]);
    }
  });

  test("refuses to spend or reserve what is not spendable, and says by how much", () => {
    h = makeHarness();
    const { id } = createAccount(h.ctx);
    const L = h.ctx.ledger;
    L.credit(id, 1_000);
    L.hold(id, 600, { expiresAt: 0 });
    for (const attempt of [() => L.hold(id, 401, { expiresAt: 0 }), () => L.debit(id, 401), () => L.adjust(id, -401)]) {
      try {
        attempt();
        throw new Error("overspent");
      } catch (err) {
        expect(err).toBeInstanceOf(InsufficientCredit);
        expect((err as InsufficientCredit).status).toBe(402);
        expect((err as InsufficientCredit).extra).toEqual({ required_micro_usd: 401, spendable_micro_usd: 400 });
      }
    }
    expect(L.balance(id)).toEqual({ balance_micro_usd: 1_000, held_micro_usd: 600, spendable_micro_usd: 400 });
    expect(entries(h, id).length).toBe(2); // refusals wrote nothing
  });

  test("a hold closes once; captures cannot exceed it; amounts must be positive integers", () => {
    h = makeHarness();
    const { id } = createAccount(h.ctx);
    const L = h.ctx.ledger;
    L.credit(id, 1_000);
    const hold = L.hold(id, 500, { expiresAt: 0 });
    expect(() => L.capture(hold.id, 501)).toThrow(/exceeds/);
    expect(L.getHold(hold.id)?.status).toBe("open"); // the failed capture rolled back
    L.capture(hold.id, 0);
    expect(L.getHold(hold.id)?.status).toBe("captured");
    expect(() => L.release(hold.id)).toThrow(ApiError);
    expect(() => L.capture(hold.id, 1)).toThrow(/already captured/);
    expect(() => L.credit(id, 1.5)).toThrow();
    expect(() => L.credit(id, 0)).toThrow();
    expect(() => L.credit("acct_missing", 5)).toThrow(/not found/);
    expect(L.balance(id)).toEqual({ balance_micro_usd: 1_000, held_micro_usd: 0, spendable_micro_usd: 1_000 });
  });

  test("expired open holds are listed for the sweeper", () => {
    h = makeHarness();
    const { id } = createAccount(h.ctx);
    h.ctx.ledger.credit(id, 1_000);
    const a = h.ctx.ledger.hold(id, 10, { expiresAt: h.clock.now() + 1_000 });
    h.ctx.ledger.hold(id, 10, { expiresAt: h.clock.now() + 10_000 });
    expect(h.ctx.ledger.expiredHolds(h.clock.now())).toEqual([]);
    h.clock.advance(1_000);
    expect(h.ctx.ledger.expiredHolds(h.clock.now()).map((x) => x.id)).toEqual([a.id]);
  });

  test("sums by kind count credits, debits and adjustments only where they happened, through the partial index the metered rows stay out of", () => {
    h = makeHarness();
    const { id } = createAccount(h.ctx);
    const L = h.ctx.ledger;
    L.credit(id, 1_000);
    const hold = L.hold(id, 300, { expiresAt: h.clock.now() + 1_000 });
    L.capture(hold.id, 200);
    L.adjust(id, -50);
    expect([L.sumOf("credit"), L.sumOf("debit"), L.adjustmentsSince(0), L.payingAccounts()]).toEqual([1_000, 200, { granted: 0, taken: 50 }, 1]);
    expect(L.debitedSince([id], 0).get(id)).toBe(200);
    // The hold, captured, left the open-holds index; the sweeper's query still finds only open ones.
    expect(L.expiredHolds(h.clock.now() + 5_000)).toEqual([]);
    const plan = (sql: string) => h.ctx.db.query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`).all().map((r) => r.detail).join(" | ");
    expect(plan("SELECT * FROM holds WHERE status = 'open' AND expires_at <= 0 ORDER BY expires_at")).toContain("holds_open_expiry");
    expect(plan("SELECT sum(amount_micro_usd) FROM ledger_entries WHERE kind = 'debit' AND created_at >= 0 AND kind IN ('credit', 'debit', 'adjustment')")).toContain("ledger_kind_time");
  });

  test("four processes racing for one balance never reserve more than it holds", async () => {
    h = makeHarness();
    const { id } = createAccount(h.ctx);
    h.ctx.ledger.credit(id, 50_000); // covers exactly 50 holds of 1,000
    const worker = `${import.meta.dir}/../support/ledger-worker.ts`;
    const procs = Array.from({ length: 4 }, () => Bun.spawn([process.execPath, worker, h.dir, id, "40", "1000"], { stdout: "pipe", stderr: "pipe" }));
    const results = await Promise.all(
      procs.map(async (p) => {
        const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
        if (code !== 0) throw new Error(`worker failed: ${err}`);
        return JSON.parse(out) as { won: string[]; refused: number };
      }),
    );
    const won = results.flatMap((r) => r.won);
    expect(won.length).toBe(50);
    expect(results.reduce((n, r) => n + r.refused, 0)).toBe(160 - 50);
    expect(h.ctx.ledger.balance(id)).toEqual({ balance_micro_usd: 50_000, held_micro_usd: 50_000, spendable_micro_usd: 0 });
    for (const holdId of won) h.ctx.ledger.release(holdId);
    expect(h.ctx.ledger.balance(id).held_micro_usd).toBe(0);
  }, 30_000);
});

describe("the balance bound", () => {
  test("a credit or grant that would take a balance past MAX_MICRO_USD is refused (409 balance_limit), nothing written", () => {
    const h = makeHarness();
    try {
      const account = createAccount(h.ctx).id;
      h.ctx.ledger.credit(account, MAX_MICRO_USD - 10);
      const before = h.ctx.ledger.entriesBefore(account, Number.MAX_SAFE_INTEGER, 10).length;
      for (const move of [() => h.ctx.ledger.credit(account, 11), () => h.ctx.ledger.adjust(account, 11)]) {
        let error: unknown;
        try {
          move();
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).status).toBe(409);
        expect((error as ApiError).type).toBe("balance_limit");
      }
      expect(h.ctx.ledger.balance(account).balance_micro_usd).toBe(MAX_MICRO_USD - 10);
      expect(h.ctx.ledger.entriesBefore(account, Number.MAX_SAFE_INTEGER, 10).length).toBe(before);
      h.ctx.ledger.credit(account, 10);
      expect(h.ctx.ledger.balance(account).balance_micro_usd).toBe(MAX_MICRO_USD);
    } finally {
      h.close();
    }
  });
});
