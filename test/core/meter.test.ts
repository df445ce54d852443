/**
 * The meter: reserve → settle/release under credit, caps up the delegation chain, the circuit
 * breaker and key constraints; reservations kept in memory (the default) and durable ones.
 * Concurrency is proven within one process (in-memory reservations) and with separate OS
 * processes on one database (durable reservations in turn under the money lease; a process kept
 * out while another holds it, and taking over after that one is killed -9).
 */
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { ApiError } from "../../src/core/errors.ts";
import { DEFAULT_HOLD_TTL_MS, type Reservation } from "../../src/core/meter.ts";
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

/** A key's spend this month: spent (key_spend) and held (durable holds and this process's in-memory ones). */
const spend = (keyId: string) => h.ctx.meter.monthSpend(keyId);

const count = (sql: string, ...params: string[]) => h.ctx.db.query<{ n: number }, string[]>(sql).get(...params)!.n;
const entries = (account: string) => h.ctx.db.query<{ kind: string; amount_micro_usd: number }, [string]>("SELECT kind, amount_micro_usd FROM ledger_entries WHERE account_id = ? ORDER BY seq").all(account);

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
    expect(refusal(() => h.ctx.meter.release(r)).type).toBe("hold_closed");
  });

  test("an in-memory reservation writes nothing; its settle writes one debit, its release nothing", () => {
    h = makeHarness();
    const account = funded(10 * USD);
    const key = mintKey(h.ctx, { accountId: account }).view;
    const changes = () => h.ctx.db.query<{ n: number }, []>("SELECT total_changes() AS n").get()!.n;
    const before = changes();
    const r = h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "inference" });
    expect(changes()).toBe(before);
    expect(r.holdId).toBeNull();
    expect(r.memoryHold).toMatchObject({ accountId: account, amount: 2 * USD });
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 10 * USD, held_micro_usd: 2 * USD, spendable_micro_usd: 8 * USD });
    // Nothing of it is in the database: another reader sees the account as it was.
    expect(h.ctx.db.query("SELECT held_micro_usd FROM accounts WHERE id = ?").get(account)).toEqual({ held_micro_usd: 0 });
    h.ctx.meter.settle(r, 750_000);
    expect(entries(account)).toEqual([
      { kind: "credit", amount_micro_usd: 10 * USD },
      { kind: "debit", amount_micro_usd: 750_000 },
    ]);
    const released = h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: USD, kind: "inference" });
    const beforeRelease = changes();
    h.ctx.meter.release(released);
    expect(changes()).toBe(beforeRelease);
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 10 * USD - 750_000, held_micro_usd: 0, spendable_micro_usd: 10 * USD - 750_000 });
    expect(count("SELECT count(*) AS n FROM holds WHERE account_id = ?", account)).toBe(0);
  });

  test("a durable reservation is a hold row with its ledger entries, settled the same way", () => {
    h = makeHarness();
    const account = funded(10 * USD);
    const key = mintKey(h.ctx, { accountId: account }).view;
    const r = h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: 2 * USD, kind: "video", durable: true });
    expect(r.memoryHold).toBeUndefined();
    expect(h.ctx.ledger.getHold(r.holdId!)).toMatchObject({ status: "open", amount_micro_usd: 2 * USD, key_id: key.id });
    expect(h.ctx.db.query("SELECT held_micro_usd FROM accounts WHERE id = ?").get(account)).toEqual({ held_micro_usd: 2 * USD });
    expect(spend(key.id)).toEqual({ spent: 0, held: 2 * USD });
    // Stored and read back (a job resumed after a restart) it settles all the same.
    h.ctx.meter.settle(JSON.parse(JSON.stringify(r)), 750_000);
    expect(entries(account).map((e) => e.kind)).toEqual(["credit", "hold", "debit", "release"]);
    expect(h.ctx.ledger.getHold(r.holdId!)!.status).toBe("captured");
    expect(spend(key.id)).toEqual({ spent: 750_000, held: 0 });
  });

  test("in-memory and durable reservations share one spendable balance", () => {
    h = makeHarness();
    const account = funded(5 * USD);
    h.ctx.meter.reserve({ accountId: account, keyId: null, amount: 3 * USD, kind: "inference" });
    expect(refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: null, amount: 3 * USD, kind: "video", durable: true })).extra).toEqual({
      required_micro_usd: 3 * USD,
      spendable_micro_usd: 2 * USD,
    });
    h.ctx.meter.reserve({ accountId: account, keyId: null, amount: 2 * USD, kind: "video", durable: true });
    expect(refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: null, amount: 1, kind: "inference" })).type).toBe("insufficient_credit");
    expect(refusal(() => h.ctx.ledger.debit(account, 1)).type).toBe("insufficient_credit");
    expect(refusal(() => h.ctx.ledger.adjust(account, -1)).type).toBe("insufficient_credit");
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

  test("the sweeper releases reservations whose work died, in memory and durable; a late settle is refused", () => {
    h = makeHarness();
    const account = funded(5 * USD);
    const key = mintKey(h.ctx, { accountId: account }).view;
    const r = h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: USD, kind: "inference", holdTtlMs: 60_000 });
    h.ctx.meter.reserve({ accountId: account, keyId: key.id, amount: USD, kind: "video", holdTtlMs: 60_000, durable: true });
    expect(h.ctx.meter.sweep()).toBe(0);
    h.clock.advance(60_000);
    expect(h.ctx.meter.sweep()).toBe(2);
    expect(h.ctx.ledger.balance(account).held_micro_usd).toBe(0);
    expect(spend(key.id).held).toBe(0);
    expect(refusal(() => h.ctx.meter.settle(r, 1)).type).toBe("hold_closed");
    expect(h.ctx.ledger.balance(account).balance_micro_usd).toBe(5 * USD);
  });
});

describe("work started with its reservation (reserveGrouped's start)", () => {
  test("in memory: starts right after the checks and the hold, with nothing written", async () => {
    h = makeHarness();
    const account = funded(10 * USD);
    const seen: { inTransaction: boolean; held: number; rows: number }[] = [];
    const r = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 2 * USD, kind: "x" }, () => {
      seen.push({ inTransaction: h.ctx.db.inTransaction, held: h.ctx.ledger.balance(account).held_micro_usd, rows: count("SELECT count(*) AS n FROM holds") });
    });
    expect(seen).toEqual([{ inTransaction: false, held: 2 * USD, rows: 0 }]);
    await h.ctx.meter.releaseGrouped(r);
    expect(h.ctx.ledger.balance(account).held_micro_usd).toBe(0);
  });

  test("durable: starts inside the reservation's transaction, after the hold is written and before the COMMIT", async () => {
    h = makeHarness();
    const account = funded(10 * USD);
    const seen: { inTransaction: boolean; held: number; committed: number }[] = [];
    const r = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 2 * USD, kind: "x", durable: true }, () => {
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

  for (const durable of [false, true]) {
    test(`a refused reservation starts nothing: no credit, a spend cap, a frozen key (${durable ? "durable" : "in memory"})`, async () => {
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
        const err = await h.ctx.meter.reserveGrouped({ accountId: account, keyId, amount, kind: "x", durable }, start).catch((e: unknown) => e);
        expect((err as ApiError).type).toBe(type);
      }
      expect(started).toBe(0);
      expect(h.ctx.ledger.balance(account).held_micro_usd).toBe(0);
    });

    test(`a start that throws undoes the reservation: the caller gets its error, nothing stays held (${durable ? "durable" : "in memory"})`, async () => {
      h = makeHarness();
      const account = funded(USD);
      const key = mintKey(h.ctx, { accountId: account, monthlyCap: USD }).view;
      const err = await h.ctx.meter
        .reserveGrouped({ accountId: account, keyId: key.id, amount: 1000, kind: "x", durable }, () => {
          throw new Error("could not start");
        })
        .catch((e: unknown) => e);
      expect((err as Error).message).toBe("could not start");
      expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: USD, held_micro_usd: 0, spendable_micro_usd: USD });
      expect(spend(key.id)).toEqual({ spent: 0, held: 0 });
      expect(h.ctx.meter.inFlight).toBe(0);
      expect(h.ctx.db.query("SELECT count(*) AS n FROM holds WHERE account_id = ?").get(account)).toEqual({ n: 0 });
    });
  }

  test("a grouped call whose savepoint rolls back gives its in-memory settle back: the hold is open again", async () => {
    h = makeHarness();
    const account = funded(USD);
    const r = await h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: 1000, kind: "x" });
    const err = await h.ctx.tx
      .grouped(() => {
        h.ctx.meter.settle(r, 400);
        throw new Error("after the settle");
      })
      .catch((e: unknown) => e);
    expect((err as Error).message).toBe("after the settle");
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: USD, held_micro_usd: 1000, spendable_micro_usd: USD - 1000 });
    expect((await h.ctx.meter.settleGrouped(r, 400)).cost).toBe(400);
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: USD - 400, held_micro_usd: 0, spendable_micro_usd: USD - 400 });
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

describe("circuit breaker across a restart", () => {
  test("the window a restarted process starts from is the last minute's spend, for the key and the keys it was delegated from", () => {
    h = makeHarness({ config: (c) => (c.keys.breaker_micro_usd_per_minute = 3 * USD) });
    const account = funded();
    const parent = mintKey(h.ctx, { accountId: account }).view;
    const child = delegateKey(h.ctx, parent.id, {}).view;
    h.ctx.meter.settle(h.ctx.meter.reserve({ accountId: account, keyId: child.id, amount: 2 * USD, kind: "x" }), 2 * USD);
    h.clock.advance(20_000);
    const { dir, clock } = h;
    h.close();
    h = makeHarness({ dir, clock, config: (c) => (c.keys.breaker_micro_usd_per_minute = 3 * USD) });
    // The parent counts its child's 2 USD from before the restart: 2 more would pass 3 a minute.
    expect(refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: parent.id, amount: 2 * USD, kind: "x" })).type).toBe("circuit_breaker_tripped");
    unfreezeKey(h.ctx, account, parent.id);
    // A minute after that spend, it no longer counts.
    h.clock.advance(41_000);
    expect(h.ctx.meter.reserve({ accountId: account, keyId: child.id, amount: 2 * USD, kind: "x" }).amount).toBe(2 * USD);
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

describe("concurrency within one process (in-memory reservations)", () => {
  test("200 reservations in flight at once against a balance that covers 50: exactly 50 succeed and start their work", async () => {
    h = makeHarness();
    const account = funded(50 * USD);
    let started = 0;
    const outcomes = await Promise.allSettled(Array.from({ length: 200 }, () => h.ctx.meter.reserveGrouped({ accountId: account, keyId: null, amount: USD, kind: "race" }, () => void started++)));
    const won = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    expect(won.length).toBe(50);
    expect(started).toBe(50);
    expect(outcomes.filter((o) => o.status === "rejected" && (o.reason as ApiError).type === "insufficient_credit").length).toBe(150);
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 50 * USD, held_micro_usd: 50 * USD, spendable_micro_usd: 0 });
    await Promise.all(won.map((r, i) => (i % 2 ? h.ctx.meter.settleGrouped(r, 400_000) : h.ctx.meter.releaseGrouped(r))));
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 50 * USD - 25 * 400_000, held_micro_usd: 0, spendable_micro_usd: 50 * USD - 25 * 400_000 });
  });

  test("100 reservations from four sibling keys under one capped parent: exactly the cap's worth succeed", async () => {
    h = makeHarness();
    const account = funded(1_000 * USD);
    const parent = mintKey(h.ctx, { accountId: account, monthlyCap: 50 * USD, breakerPerMinute: 0 }).view;
    const siblings = Array.from({ length: 4 }, () => delegateKey(h.ctx, parent.id, {}).view.id);
    const outcomes = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => h.ctx.meter.reserveGrouped({ accountId: account, keyId: siblings[i % 4]!, amount: USD, kind: "race" })));
    const won = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    expect(won.length).toBe(50);
    expect(spend(parent.id)).toEqual({ spent: 0, held: 50 * USD });
    await Promise.all(won.map((r) => h.ctx.meter.settleGrouped(r, 600_000))); // cheaper than reserved
    expect(spend(parent.id)).toEqual({ spent: 30 * USD, held: 0 });
    expect(h.ctx.outbox.since(0).filter((e) => e.type === "spend_cap_reached")).toHaveLength(1);
  });
});

describe("concurrency (separate processes, one database)", () => {
  const worker = `${import.meta.dir}/../support/meter-worker.ts`;
  type Outcome = { won: Reservation[]; refused: Record<string, number>; started: number };
  const spawnWorker = (accountId: string, keys: string, attempts: number, amount: number, mode: "durable" | "grouped" | "hold" | "hold-stuck", leaseWaitMs?: number) =>
    Bun.spawn([process.execPath, worker, h.dir, accountId, keys, String(attempts), String(amount), mode, ...(leaseWaitMs === undefined ? [] : [String(leaseWaitMs)])], { stdout: "pipe", stderr: "pipe" });
  async function outcomeOf(p: ReturnType<typeof spawnWorker>): Promise<Outcome> {
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    if (code !== 0) throw new Error(`worker failed: ${err}`);
    return JSON.parse(out) as Outcome;
  }

  /** Workers started together; each spends in turn (the money lease), durable holds that outlive it. */
  async function race(keys: string[] | null, accountId: string, processes: number, attempts: number, amount: number, mode: "durable" | "grouped") {
    const procs = Array.from({ length: processes }, (_, i) => spawnWorker(accountId, keys ? keys.slice(i % keys.length).concat(keys.slice(0, i % keys.length)).join(",") : "-", attempts, amount, mode));
    const results = await Promise.all(procs.map(outcomeOf));
    return { won: results.flatMap((r) => r.won), refused: results.map((r) => r.refused), started: results.reduce((n, r) => n + r.started, 0) };
  }

  test("100 durable reservations from four processes and four sibling keys under one capped parent: exactly the cap's worth succeed", async () => {
    h = makeHarness();
    const account = funded(1_000 * USD);
    const parent = mintKey(h.ctx, { accountId: account, monthlyCap: 50 * USD, breakerPerMinute: 0 }).view;
    const siblings = Array.from({ length: 4 }, () => delegateKey(h.ctx, parent.id, {}).view.id);
    const { won, refused } = await race(siblings, account, 4, 25, USD, "durable");
    expect(won.length).toBe(50);
    expect(refused.reduce((n, r) => n + (r.spend_cap_reached ?? 0), 0)).toBe(50);
    expect(spend(parent.id)).toEqual({ spent: 0, held: 50 * USD });
    for (const r of won) h.ctx.meter.settle(r, 600_000); // cheaper than reserved
    expect(spend(parent.id)).toEqual({ spent: 30 * USD, held: 0 });
  }, 30_000);

  test("200 durable reservations from four processes against a balance that covers 50: exactly 50 succeed, never below zero, held returns to 0", async () => {
    h = makeHarness();
    const account = funded(50 * USD);
    const { won, refused } = await race(null, account, 4, 50, USD, "durable");
    expect(won.length).toBe(50);
    expect(refused.reduce((n, r) => n + (r.insufficient_credit ?? 0), 0)).toBe(150);
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 50 * USD, held_micro_usd: 50 * USD, spendable_micro_usd: 0 });
    won.forEach((r, i) => (i % 2 ? h.ctx.meter.settle(r, 400_000) : h.ctx.meter.release(r)));
    const after = h.ctx.ledger.balance(account);
    expect(after.held_micro_usd).toBe(0);
    expect(after.balance_micro_usd).toBe(50 * USD - 25 * 400_000);
  }, 30_000);

  test("group commit: 4 processes each firing 50 grouped durable reservations at once against a balance that covers 50: exactly 50 succeed and start their work", async () => {
    h = makeHarness();
    const account = funded(50 * USD);
    const { won, refused, started } = await race(null, account, 4, 50, USD, "grouped");
    expect(won.length).toBe(50);
    expect(started).toBe(50); // work started before each COMMIT, only for the reservations that won
    expect(refused.reduce((n, r) => n + (r.insufficient_credit ?? 0), 0)).toBe(150);
    expect(new Set(won.map((r) => r.holdId)).size).toBe(50);
    await Promise.all(won.map((r, i) => (i % 2 ? h.ctx.meter.settleGrouped(r, 400_000) : h.ctx.meter.releaseGrouped(r))));
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 50 * USD - 25 * 400_000, held_micro_usd: 0, spendable_micro_usd: 50 * USD - 25 * 400_000 });
  }, 30_000);

  /** A worker in "hold" mode: its line once it holds its reservations in memory (it then stays alive). */
  async function holding(p: ReturnType<typeof spawnWorker>): Promise<Outcome> {
    const reader = p.stdout.getReader();
    let line = "";
    for (let i = 0; i < 100 && !line.includes("\n"); i++) {
      const { value, done } = await reader.read();
      if (done) break;
      line += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    return JSON.parse(line) as Outcome;
  }
  /** A worker that takes `count` reservations of `amount` and keeps them (`mode`); `fn` runs while it holds them, then it is killed -9. */
  async function whileHeld(account: string, count: number, amount: number, mode: "hold" | "hold-stuck", fn: (held: Outcome, holder: ReturnType<typeof spawnWorker>) => Promise<void> | void) {
    const holder = spawnWorker(account, "-", count, amount, mode);
    try {
      await fn(await holding(holder), holder);
    } finally {
      holder.kill(9);
      await holder.exited;
    }
    return holder;
  }
  const accountRow = (account: string) => h.ctx.db.query<{ b: number; h: number }, [string]>("SELECT balance_micro_usd AS b, held_micro_usd AS h FROM accounts WHERE id = ?").get(account)!;

  test("a process keeping reservations in memory yields to another that must spend: they become durable holds the other sees, and neither overspends", async () => {
    h = makeHarness();
    const account = funded(50 * USD);
    await whileHeld(account, 30, USD, "hold", (held) => {
      expect([held.won.length, held.started]).toEqual([30, 30]);
      expect(held.won.every((r) => r.memoryHold && r.holdId === null)).toBe(true);
      // Nothing of it is written: the database shows the whole balance, nothing held.
      expect(accountRow(account)).toEqual({ b: 50 * USD, h: 0 });
      // This process must spend: it asks, the holder writes its 30 reservations as holds and shares the lease.
      const mine: Reservation[] = [];
      const refused: string[] = [];
      for (let i = 0; i < 30; i++) {
        try {
          mine.push(h.ctx.meter.reserve({ accountId: account, keyId: null, amount: USD, kind: "race" }));
        } catch (err) {
          refused.push((err as ApiError).type);
        }
      }
      expect(h.ctx.ledger.lease.mode).toBe("shared");
      expect(mine.length).toBe(20);
      expect(refused).toEqual(Array(10).fill("insufficient_credit"));
      expect(mine.every((r) => r.holdId !== null && !r.memoryHold)).toBe(true);
      expect(accountRow(account)).toEqual({ b: 50 * USD, h: 50 * USD });
      expect(count("SELECT count(*) AS n FROM holds WHERE account_id = ? AND status = 'open'", account)).toBe(50);
      for (const r of mine) h.ctx.meter.settle(r, 500_000);
    });
    // Its reservations were written when it yielded: they outlive it, and the sweeper gives them back
    // once their TTL passes (on the worker's clock, the wall clock).
    expect(accountRow(account)).toEqual({ b: 40 * USD, h: 30 * USD });
    h.clock.set(Date.now() + DEFAULT_HOLD_TTL_MS + 60_000);
    expect(h.ctx.meter.sweep()).toBe(30);
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 40 * USD, held_micro_usd: 0, spendable_micro_usd: 40 * USD });
  }, 30_000);

  test("killed -9 while it holds reservations in memory, a process loses them and nothing else: the credit is whole for the next", async () => {
    h = makeHarness();
    const account = funded(50 * USD);
    const holder = await whileHeld(account, 50, USD, "hold", (held) => {
      expect(held.won.length).toBe(50);
      expect(accountRow(account)).toEqual({ b: 50 * USD, h: 0 });
    });
    expect(holder.signalCode).toBe("SIGKILL");
    // The lease died with it: this process takes it exclusively, and the whole credit is spendable.
    expect(h.ctx.ledger.balance(account)).toEqual({ balance_micro_usd: 50 * USD, held_micro_usd: 0, spendable_micro_usd: 50 * USD });
    const all = Array.from({ length: 50 }, () => h.ctx.meter.reserve({ accountId: account, keyId: null, amount: USD, kind: "race" }));
    expect(h.ctx.ledger.lease.mode).toBe("exclusive");
    expect(all.every((r) => r.memoryHold)).toBe(true);
    expect(refusal(() => h.ctx.meter.reserve({ accountId: account, keyId: null, amount: 1, kind: "race" })).type).toBe("insufficient_credit");
    expect(count("SELECT count(*) AS n FROM ledger_entries WHERE account_id = ? AND kind != 'credit'", account)).toBe(0);
  }, 30_000);

  test("a holder that does not yield in time: the other is refused with 503 money_path_busy and spends nothing", async () => {
    h = makeHarness();
    const account = funded(50 * USD);
    await whileHeld(account, 10, USD, "hold-stuck", (held, holder) => {
      expect(held.won.length).toBe(10);
      h.ctx.ledger.lease.waitMs = 300;
      for (const attempt of [
        () => h.ctx.meter.reserve({ accountId: account, keyId: null, amount: USD, kind: "race" }),
        () => h.ctx.meter.reserve({ accountId: account, keyId: null, amount: USD, kind: "race", durable: true }),
        () => h.ctx.ledger.debit(account, USD),
        () => h.ctx.ledger.adjust(account, -USD),
      ]) {
        const err = refusal(attempt);
        expect([err.status, err.type, err.headers["retry-after"]]).toEqual([503, "money_path_busy", "5"]);
        expect(err.message).toContain(`pid ${holder.pid}`);
      }
      // Money in needs no lease.
      h.ctx.ledger.credit(account, 10 * USD, { type: "deposit" });
      expect(accountRow(account)).toEqual({ b: 60 * USD, h: 0 });
    });
  }, 30_000);
});
