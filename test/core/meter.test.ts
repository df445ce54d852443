/**
 * The meter: reserve → settle/release under credit, caps up the delegation chain, the circuit
 * breaker and key constraints. Concurrency is proven with separate OS processes on one database.
 */
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { ApiError } from "../../src/core/errors.ts";
import type { Reservation } from "../../src/core/meter.ts";
import { createAccount } from "../../src/domains/accounts/service.ts";
import { delegateKey, mintKey, rotateKey, unfreezeKey } from "../../src/domains/keys/service.ts";
import { type Harness, makeHarness } from "../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const USD = 1_000_000;

function funded(amount = 100 * USD) {
  const account = createAccount(h.ctx);
  h.ctx.ledger.credit(account.id, amount, { type: "deposit" });
  return account.id;
}

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

const spend = (keyId: string) =>
  h.ctx.db.query<{ spent: number; held: number }, [string]>("SELECT spent_micro_usd AS spent, held_micro_usd AS held FROM key_spend WHERE key_id = ?").get(keyId) ?? { spent: 0, held: 0 };

describe("reserve and settle", () => {
  test("holds the worst case, charges the actual cost, releases the rest, records usage along the chain", () => {
    h = makeHarness();
    const account = funded(10 * USD);
    const parent = mintKey(h.ctx, { accountId: account, scopes: ["*"] }).view;
    const child = delegateKey(h.ctx, parent.id, {}).view;
    const r = h.ctx.meter.reserve({ accountId: account, keyId: child.id, amount: 2 * USD, kind: "inference", resource: "gpt-x", resourceType: "model", runId: "run_1" });
    expect(r.chain).toEqual([child.id, parent.id]);
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 10 * USD, held_micro_usd: 2 * USD, spendable_micro_usd: 8 * USD });
    expect(spend(parent.id)).toEqual({ spent: 0, held: 2 * USD });
    const s = h.ctx.meter.settle(r, 750_000, { units: { input_tokens: 10, output_tokens: 20 } });
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 10 * USD - 750_000, held_micro_usd: 0, spendable_micro_usd: 10 * USD - 750_000 });
    expect(spend(child.id)).toEqual({ spent: 750_000, held: 0 });
    expect(spend(parent.id)).toEqual({ spent: 750_000, held: 0 });
    const usage = h.ctx.db.query<Record<string, unknown>, [string]>("SELECT * FROM usage_events WHERE id = ?").get(s.usageEventId)!;
    expect(usage).toMatchObject({ account_id: account, key_id: child.id, kind: "inference", resource: "gpt-x", run_id: "run_1", cost_micro_usd: 750_000, reserved_micro_usd: 2 * USD, status: "succeeded" });
    expect(JSON.parse(usage.units as string)).toEqual({ input_tokens: 10, output_tokens: 20 });
    expect(() => h.ctx.meter.settle(r, 1)).toThrow(); // a reservation settles once
  });

  test("a cost above the reservation is charged from spendable credit, never below zero", () => {
    h = makeHarness();
    const account = funded(3 * USD);
    const key = mintKey(h.ctx, { accountId: account }).view;
    const a = h.ctx.meter.settle(h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: USD, kind: "inference" }), USD + 250_000);
    expect(a.cost).toBe(USD + 250_000);
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 3 * USD - USD - 250_000, held_micro_usd: 0, spendable_micro_usd: 3 * USD - USD - 250_000 });
    // Only 1.75 USD left: a 1 USD reservation that turns out to cost 5 USD charges what is there.
    const b = h.ctx.meter.settle(h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: USD, kind: "inference" }), 5 * USD);
    expect(b.cost).toBe(1_750_000);
    expect(h.ctx.ledger.balance(account).balance_micro_usd).toBe(0);
    const usage = h.ctx.db.query<{ cost_micro_usd: number; units: string }, [string]>("SELECT cost_micro_usd, units FROM usage_events WHERE id = ?").get(b.usageEventId)!;
    expect(usage.cost_micro_usd).toBe(1_750_000);
    expect(JSON.parse(usage.units)).toEqual({ uncharged_micro_usd: 5 * USD - 1_750_000 });
    expect(spend(key.id).spent).toBe(USD + 250_000 + 1_750_000);
  });

  test("release gives everything back", () => {
    h = makeHarness();
    const account = funded(5 * USD);
    const key = mintKey(h.ctx, { accountId: account }).view;
    const r = h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: USD, kind: "sandbox" });
    h.ctx.meter.release(r);
    expect(h.ctx.ledger.balance(account).held_micro_usd).toBe(0);
    expect(spend(key.id)).toEqual({ spent: 0, held: 0 });
  });

  test("insufficient credit answers 402 insufficient_credit and writes nothing", () => {
    h = makeHarness();
    const account = funded(USD);
    const key = mintKey(h.ctx, { accountId: account }).view;
    const err = refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: USD + 1, kind: "inference" }));
    expect(err.status).toBe(402);
    expect(err.type).toBe("insufficient_credit");
    expect(spend(key.id)).toEqual({ spent: 0, held: 0 });
  });

  test("the sweeper releases reservations whose work died", () => {
    h = makeHarness();
    const account = funded(5 * USD);
    const key = mintKey(h.ctx, { accountId: account }).view;
    h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: USD, kind: "inference", holdTtlMs: 60_000 });
    expect(h.ctx.meter.sweep()).toBe(0);
    h.clock.advance(60_000);
    expect(h.ctx.meter.sweep()).toBe(1);
    expect(h.ctx.ledger.balance(account).held_micro_usd).toBe(0);
    expect(spend(key.id).held).toBe(0);
  });
});

describe("work started with its reservation (reserveGrouped's start)", () => {
  test("starts inside the reservation's transaction, after the hold is written and before the COMMIT", async () => {
    h = makeHarness();
    const account = funded(10 * USD);
    const seen: { inTransaction: boolean; held: number; committed: number }[] = [];
    const r = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 2 * USD, kind: "x" }, () => {
      // Another connection sees only what is committed: the hold is written here but not yet durable.
      const other = new Database(h.ctx.paths.db, { readonly: true });
      const committed = other.query<{ held: number }, [string]>("SELECT held_micro_usd AS held FROM accounts WHERE id = ?").get(account)!.held;
      other.close();
      seen.push({ inTransaction: h.ctx.db.inTransaction, held: h.ctx.ledger.balance(account).held_micro_usd, committed });
    });
    expect(seen).toEqual([{ inTransaction: true, held: 2 * USD, committed: 0 }]);
    expect(h.ctx.db.inTransaction).toBe(false);
    expect(h.ctx.ledger.getHold(r.holdId!)!.status).toBe("open");
    await h.ctx.meter.releaseGrouped(r);
  });

  test("a refused reservation starts nothing: no credit, a spend cap, a frozen key", async () => {
    h = makeHarness();
    const account = funded(USD);
    const capped = mintKey(h.ctx, { accountId: account, monthlyCap: 100 }).view;
    const frozen = mintKey(h.ctx, { accountId: account }).view;
    h.ctx.db.query("UPDATE api_keys SET frozen_at = 1 WHERE id = ?").run(frozen.id);
    let started = 0;
    const start = () => void started++;
    for (const [keyId, amount, type] of [
      [null, 2 * USD, "insufficient_credit"],
      [capped.id, 1000, "spend_cap_reached"],
      [frozen.id, 1000, "circuit_breaker_tripped"],
    ] as const) {
      const err = await h.ctx.meter.reserveGrouped({ accountId: account, keyId, amount, kind: "x" }, start).catch((e: unknown) => e);
      expect((err as ApiError).type).toBe(type);
    }
    expect(started).toBe(0);
  });

  test("a start that throws undoes the reservation: the caller gets its error, nothing stays held", async () => {
    h = makeHarness();
    const account = funded(USD);
    const err = await h.ctx.meter
      .reserveGrouped({ accountId: account, keyId: null, amount: 1000, kind: "x" }, () => {
        throw new Error("could not start");
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe("could not start");
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: USD, held_micro_usd: 0, spendable_micro_usd: USD });
    expect(h.ctx.db.query("SELECT count(*) AS n FROM holds WHERE account_id = ?").get(account)).toEqual({ n: 0 });
  });
});

describe("caps", () => {
  test("a monthly cap refuses with 402 spend_cap_reached (no payment terms), fires once per key per month, resets next month", () => {
    h = makeHarness();
    const account = funded();
    const key = mintKey(h.ctx, { accountId: account, monthlyCap: 3 * USD }).view;
    h.ctx.meter.settle(h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }), 2 * USD);
    const first = refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }));
    expect(first.status).toBe(402);
    expect(first.type).toBe("spend_cap_reached");
    expect(first.body().error).not.toHaveProperty("accepts");
    refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }));
    expect(h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: USD, kind: "x" }).amount).toBe(USD); // up to the cap is fine
    const events = h.ctx.outbox.since(0).filter((e) => e.type === "spend_cap_reached");
    expect(events.length).toBe(1);
    expect(events[0]!.payload).toMatchObject({ key_id: key.id, period: "month", cap_micro_usd: 3 * USD });
    h.clock.advance(31 * 86_400_000); // a new month
    expect(h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }).amount).toBe(2 * USD);
  });

  test("a child can never let its parent exceed the parent's cap", () => {
    h = makeHarness();
    const account = funded();
    const parent = mintKey(h.ctx, { accountId: account, monthlyCap: 5 * USD }).view;
    const a = delegateKey(h.ctx, parent.id, {}).view;
    const b = delegateKey(h.ctx, parent.id, {}).view;
    h.ctx.meter.reserve({ accountId: account, keyId: a.id, amount: 3 * USD, kind: "x" });
    const err = refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: b.id, amount: 3 * USD, kind: "x" }));
    expect(err.type).toBe("spend_cap_reached");
    expect(err.extra.key_id).toBe(parent.id);
  });

  test("a lifetime cap (mandates, ghosts) counts every month", () => {
    h = makeHarness();
    const account = funded();
    const key = mintKey(h.ctx, { accountId: account, totalCap: 3 * USD, kind: "mandate" }).view;
    h.ctx.meter.settle(h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }), 2 * USD);
    h.clock.advance(40 * 86_400_000);
    const err = refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }));
    expect(err).toMatchObject({ type: "spend_cap_reached" });
    expect(err.extra.period).toBe("lifetime");
  });
});

describe("circuit breaker", () => {
  test("trips on spend per minute above the limit, freezes the key, stays frozen after paying, lifts only on unfreeze", () => {
    h = makeHarness({ config: (c) => (c.keys.breaker_micro_usd_per_minute = 3 * USD) });
    const account = funded();
    const key = mintKey(h.ctx, { accountId: account }).view;
    h.ctx.meter.settle(h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }), 2 * USD);
    const trip = refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }));
    expect(trip.status).toBe(402);
    expect(trip.type).toBe("circuit_breaker_tripped");
    expect(trip.body().error).not.toHaveProperty("accepts");
    // Frozen: even a tiny request, even a minute later, even after money comes in.
    h.clock.advance(120_000);
    h.ctx.ledger.credit(account, 50 * USD, { type: "deposit" });
    expect(refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 1, kind: "x" })).type).toBe("circuit_breaker_tripped");
    unfreezeKey(h.ctx, account, key.id);
    expect(h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }).amount).toBe(2 * USD);
  });

  test("spend older than a minute no longer counts; 0 turns the breaker off for a key", () => {
    h = makeHarness({ config: (c) => (c.keys.breaker_micro_usd_per_minute = 3 * USD) });
    const account = funded();
    const key = mintKey(h.ctx, { accountId: account }).view;
    h.ctx.meter.settle(h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }), 2 * USD);
    h.clock.advance(61_000);
    expect(h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "x" }).amount).toBe(2 * USD);
    const off = mintKey(h.ctx, { accountId: account, breakerPerMinute: 0 }).view;
    const held = Array.from({ length: 5 }, () => h.ctx.meter.reserve({ accountId: account, keyId: off.id, amount: 2 * USD, kind: "x" }));
    expect(held.length).toBe(5);
    expect(spend(off.id).held).toBe(10 * USD);
  });
});

describe("key constraints", () => {
  test("revoked, expired, not-yet-valid keys and disallowed models are refused", () => {
    h = makeHarness();
    const account = funded();
    const now = h.clock.now();
    const models = mintKey(h.ctx, { accountId: account, allowedModels: ["small"], notBefore: now + 60_000, expiresAt: now + 120_000 }).view;
    expect(refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: models.id, amount: 1, kind: "x", resource: "small", resourceType: "model" })).type).toBe("api_key_not_yet_valid");
    h.clock.advance(60_000);
    expect(h.ctx.meter.reserve({ accountId: account, keyId: models.id, amount: 1, kind: "x", resource: "small", resourceType: "model" }).amount).toBe(1);
    const other = refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: models.id, amount: 1, kind: "x", resource: "large", resourceType: "model" }));
    expect(other).toMatchObject({ status: 403, type: "resource_not_allowed" });
    h.clock.advance(60_000);
    expect(refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: models.id, amount: 1, kind: "x" })).type).toBe("api_key_expired");
  });

  test("work reserved before a rotation settles against the replacement", () => {
    h = makeHarness();
    const account = funded();
    const old = mintKey(h.ctx, { accountId: account, monthlyCap: 10 * USD }).view;
    const r = h.ctx.meter.reserve({ accountId: account, keyId: old.id, amount: 3 * USD, kind: "x" });
    const next = rotateKey(h.ctx, account, old.id).view;
    expect(spend(next.id).held).toBe(3 * USD);
    h.ctx.meter.settle(r, 2 * USD);
    expect(spend(next.id)).toEqual({ spent: 2 * USD, held: 0 });
  });
});

describe("concurrency (separate processes, one database)", () => {
  async function race(keys: string[] | null, accountId: string, processes: number, attempts: number, amount: number, mode: "one by one" | "grouped" = "one by one") {
    const worker = `${import.meta.dir}/../support/meter-worker.ts`;
    const procs = Array.from({ length: processes }, (_, i) =>
      Bun.spawn([process.execPath, worker, h.dir, accountId, keys ? keys.slice(i % keys.length).concat(keys.slice(0, i % keys.length)).join(",") : "-", String(attempts), String(amount), mode === "grouped" ? "grouped" : ""], { stdout: "pipe", stderr: "pipe" }),
    );
    const results = await Promise.all(
      procs.map(async (p) => {
        const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
        if (code !== 0) throw new Error(`worker failed: ${err}`);
        return JSON.parse(out) as { won: Reservation[]; refused: Record<string, number>; started: number };
      }),
    );
    return { won: results.flatMap((r) => r.won), refused: results.map((r) => r.refused), started: results.reduce((n, r) => n + r.started, 0) };
  }

  test("100 concurrent reservations from four sibling keys under one capped parent: exactly the cap's worth succeed", async () => {
    h = makeHarness();
    const account = funded(1_000 * USD);
    const parent = mintKey(h.ctx, { accountId: account, monthlyCap: 50 * USD, breakerPerMinute: 0 }).view;
    const siblings = Array.from({ length: 4 }, () => delegateKey(h.ctx, parent.id, {}).view.id);
    const { won, refused } = await race(siblings, account, 4, 25, USD);
    expect(won.length).toBe(50);
    expect(refused.reduce((n, r) => n + (r.spend_cap_reached ?? 0), 0)).toBe(50);
    expect(spend(parent.id)).toEqual({ spent: 0, held: 50 * USD });
    for (const r of won) h.ctx.meter.settle(r, 600_000); // cheaper than reserved
    expect(spend(parent.id)).toEqual({ spent: 30 * USD, held: 0 });
    expect(spend(parent.id).spent).toBeLessThanOrEqual(50 * USD);
  }, 30_000);

  test("200 concurrent reservations against a balance that covers 50: at most 50 succeed, never below zero, held returns to 0", async () => {
    h = makeHarness();
    const account = funded(50 * USD);
    const { won, refused } = await race(null, account, 4, 50, USD);
    expect(won.length).toBe(50);
    expect(refused.reduce((n, r) => n + (r.insufficient_credit ?? 0), 0)).toBe(150);
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 50 * USD, held_micro_usd: 50 * USD, spendable_micro_usd: 0 });
    won.forEach((r, i) => (i % 2 ? h.ctx.meter.settle(r, 400_000) : h.ctx.meter.release(r)));
    const after = h.ctx.ledger.balance(account);
    expect(after.held_micro_usd).toBe(0);
    expect(after.balance_micro_usd).toBe(50 * USD - 25 * 400_000);
    expect(after.balance_micro_usd).toBeGreaterThanOrEqual(0);
  }, 30_000);

  test("group commit: 4 processes each firing 50 grouped reservations at once against a balance that covers 50: exactly 50 succeed and start their work", async () => {
    h = makeHarness();
    const account = funded(50 * USD);
    const { won, refused, started } = await race(null, account, 4, 50, USD, "grouped");
    expect(won.length).toBe(50);
    expect(started).toBe(50); // work started before each COMMIT, only for the reservations that won
    expect(refused.reduce((n, r) => n + (r.insufficient_credit ?? 0), 0)).toBe(150);
    expect(new Set(won.map((r) => r.holdId)).size).toBe(50);
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 50 * USD, held_micro_usd: 50 * USD, spendable_micro_usd: 0 });
    await Promise.all(won.map((r, i) => (i % 2 ? h.ctx.meter.settleGrouped(r, 400_000) : h.ctx.meter.releaseGrouped(r))));
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 50 * USD - 25 * 400_000, held_micro_usd: 0, spendable_micro_usd: 50 * USD - 25 * 400_000 });
  }, 30_000);

  test("group commit: grouped reservations from sibling keys never let the capped parent pass its cap", async () => {
    h = makeHarness();
    const account = funded(1_000 * USD);
    const parent = mintKey(h.ctx, { accountId: account, monthlyCap: 50 * USD, breakerPerMinute: 0 }).view;
    const siblings = Array.from({ length: 4 }, () => delegateKey(h.ctx, parent.id, {}).view.id);
    const { won, refused, started } = await race(siblings, account, 4, 25, USD, "grouped");
    expect(won.length).toBe(50);
    expect(started).toBe(50);
    expect(refused.reduce((n, r) => n + (r.spend_cap_reached ?? 0), 0)).toBe(50);
    expect(spend(parent.id)).toEqual({ spent: 0, held: 50 * USD });
    // The cap's trace (its event, once) committed with the group even though those reservations were refused.
    expect(h.ctx.outbox.since(0).filter((e) => e.type === "spend_cap_reached")).toHaveLength(1);
  }, 30_000);
});
