/**
 * /v1/billing/alerts through HTTP and the balance_low event: default and custom thresholds,
 * once per downward crossing, re-armed by a rise to the threshold, written in the debit's own
 * transaction, and fired for debits from every path (meter, ledger, operator, other processes).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { openContext } from "../../../src/open.ts";
import { silentLogger } from "../../../src/core/log.ts";
import { registerBalanceAlerts } from "../../../src/domains/billing/alerts.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const USD = 1_000_000;
const DEFAULT = 5 * USD; // billing.balance_low_micro_usd's built-in default

function tenant(balance = 0) {
  const { account, session } = accountWithSession(h.ctx);
  if (balance) h.ctx.ledger.credit(account.id, balance, { type: "deposit" });
  return { accountId: account.id, auth: bearer(session.token) };
}

const alerts = (auth: Record<string, string>) => h.json("GET", "/v1/billing/alerts", { headers: auth });
const setThreshold = (auth: Record<string, string>, value: unknown) => h.json("PUT", "/v1/billing/alerts", { headers: auth, body: { balance_low_micro_usd: value } });
const fired = (accountId: string) =>
  h.ctx.outbox
    .since(0)
    .filter((e) => e.type === "balance_low" && e.account_id === accountId)
    .map((e) => e.payload);
const debit = (accountId: string, usd: number) => h.ctx.ledger.debit(accountId, usd * USD, { type: "test" });

describe("GET and PUT /v1/billing/alerts", () => {
  test("the deployment default applies until the account sets its own; null returns to the default", async () => {
    h = makeHarness();
    const { auth } = tenant(10 * USD);
    const first = await alerts(auth);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      balance_low_micro_usd: null,
      default_threshold_micro_usd: DEFAULT,
      effective_threshold_micro_usd: DEFAULT,
      armed: true,
      balance_micro_usd: 10 * USD,
      last_fired_at: null,
    });
    const custom = await setThreshold(auth, 12 * USD);
    expect(custom.status).toBe(200);
    expect(custom.body).toMatchObject({ balance_low_micro_usd: 12 * USD, effective_threshold_micro_usd: 12 * USD, armed: false });
    expect((await alerts(auth)).body).toEqual(custom.body);
    const reset = await setThreshold(auth, null);
    expect(reset.body).toMatchObject({ balance_low_micro_usd: null, effective_threshold_micro_usd: DEFAULT, armed: true });
  });

  test("the default comes from configuration", async () => {
    h = makeHarness({ config: (c) => (c.billing.balance_low_micro_usd = 2 * USD) });
    const { auth } = tenant();
    expect((await alerts(auth)).body).toMatchObject({ default_threshold_micro_usd: 2 * USD, effective_threshold_micro_usd: 2 * USD, armed: false });
  });

  test("bad input names the field; a session is required", async () => {
    h = makeHarness();
    const { auth } = tenant();
    const cases: [unknown, string][] = [
      [{ balance_low_micro_usd: "5000000" }, "balance_low_micro_usd"],
      [{ balance_low_micro_usd: -1 }, "balance_low_micro_usd"],
      [{ balance_low_micro_usd: 1.5 }, "balance_low_micro_usd"],
      [{}, "balance_low_micro_usd"],
      [{ balance_low_micro_usd: 1, email: "a@b.c" }, "email"],
    ];
    for (const [body, param] of cases) {
      const r = await h.json("PUT", "/v1/billing/alerts", { headers: auth, body });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    expect((await alerts(auth)).body.balance_low_micro_usd).toBeNull();
    expect((await h.json("GET", "/v1/billing/alerts")).status).toBe(401);
    expect((await h.json("PUT", "/v1/billing/alerts", { body: { balance_low_micro_usd: 1 } })).status).toBe(401);
  });
});

describe("balance_low", () => {
  test("fires once per downward crossing, re-arms when the balance rises to the threshold, fires on the next crossing", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant(10 * USD);
    debit(accountId, 3); // 7: above
    expect(fired(accountId)).toEqual([]);
    debit(accountId, 3); // 4: crossed
    debit(accountId, 1); // 3: still below
    debit(accountId, 2); // 1
    expect(fired(accountId)).toEqual([{ balance_micro_usd: 4 * USD, threshold_micro_usd: DEFAULT }]);
    const low = await alerts(auth);
    expect(low.body).toMatchObject({ armed: false, last_fired_at: new Date(h.clock.now()).toISOString() });

    h.ctx.ledger.credit(accountId, 3 * USD, { type: "deposit" }); // 4: still below, not re-armed
    debit(accountId, 1);
    expect(fired(accountId).length).toBe(1);
    h.ctx.ledger.credit(accountId, 2 * USD, { type: "deposit" }); // 5: at the threshold, re-armed
    expect((await alerts(auth)).body.armed).toBe(true);
    debit(accountId, 1); // 4: crossed again
    expect(fired(accountId)).toEqual([
      { balance_micro_usd: 4 * USD, threshold_micro_usd: DEFAULT },
      { balance_micro_usd: 4 * USD, threshold_micro_usd: DEFAULT },
    ]);
  });

  test("a custom threshold is the one crossed; 0 never fires", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant(10 * USD);
    await setThreshold(auth, 8 * USD);
    debit(accountId, 3);
    expect(fired(accountId)).toEqual([{ balance_micro_usd: 7 * USD, threshold_micro_usd: 8 * USD }]);
    const other = tenant(10 * USD);
    await setThreshold(other.auth, 0);
    debit(other.accountId, 10);
    expect(fired(other.accountId)).toEqual([]);
  });

  test("a new threshold takes effect at once and never fires by itself", async () => {
    h = makeHarness();
    const { accountId, auth } = tenant(10 * USD);
    debit(accountId, 6); // 4: fires at the default 5
    expect(fired(accountId).length).toBe(1);
    // Lowered below the balance: armed again, so the next fall below 3 fires.
    expect((await setThreshold(auth, 3 * USD)).body.armed).toBe(true);
    debit(accountId, 2); // 2
    expect(fired(accountId).at(-1)).toEqual({ balance_micro_usd: 2 * USD, threshold_micro_usd: 3 * USD });
    // Raised above the balance: not armed, and no event just for setting it.
    expect((await setThreshold(auth, 10 * USD)).body.armed).toBe(false);
    debit(accountId, 1);
    expect(fired(accountId).length).toBe(2);
  });

  test("debits from the meter's settle, operator charges and subscription fees fire it; holds and credits do not", async () => {
    h = makeHarness({ config: (c) => c.plans.push({ id: "pro", name: "Pro", monthly_fee_micro_usd: 4 * USD, retention_days: 30, limits: {}, features: [] }) });
    const a = tenant(6 * USD);
    const r = h.ctx.meter.reserve({ accountId: a.accountId, keyId: null, amount: 3 * USD, kind: "inference" });
    expect(fired(a.accountId)).toEqual([]); // a hold moves spendable credit, not the balance
    h.ctx.meter.settle(r, 2 * USD);
    expect(fired(a.accountId)).toEqual([{ balance_micro_usd: 4 * USD, threshold_micro_usd: DEFAULT }]);

    const b = tenant(6 * USD);
    h.ctx.ledger.adjust(b.accountId, -2 * USD, { type: "operator" });
    expect(fired(b.accountId)).toEqual([{ balance_micro_usd: 4 * USD, threshold_micro_usd: DEFAULT }]);

    const c = tenant(6 * USD);
    expect((await h.json("POST", "/v1/billing/subscription", { headers: c.auth, body: { plan: "pro" } })).status).toBe(200);
    expect(fired(c.accountId)).toEqual([{ balance_micro_usd: 2 * USD, threshold_micro_usd: DEFAULT }]);
  });

  test("the event is written in the debit's transaction: a rolled-back debit leaves no event", () => {
    h = makeHarness();
    const { accountId } = tenant(6 * USD);
    expect(() =>
      h.ctx.tx.run(() => {
        debit(accountId, 2);
        expect(fired(accountId).length).toBe(1); // visible inside the transaction…
        throw new Error("the work failed");
      }),
    ).toThrow("the work failed");
    expect(fired(accountId)).toEqual([]); // …and gone with it
    expect(h.ctx.ledger.balance(accountId).balance_micro_usd).toBe(6 * USD);
    expect(h.ctx.db.query("SELECT last_fired_at FROM billing_alerts WHERE account_id = ?").get(accountId)).toBeNull();
    // Still armed: the committed crossing fires.
    const entry = debit(accountId, 2);
    const [event] = h.ctx.outbox.since(0).filter((e) => e.type === "balance_low");
    expect(event).toMatchObject({ account_id: accountId, created_at: entry.created_at, payload: { balance_micro_usd: 4 * USD, threshold_micro_usd: DEFAULT } });
  });

  test("every context watches balances (a CLI process never builds the app), and only once", () => {
    h = makeHarness();
    const { accountId } = tenant(6 * USD);
    registerBalanceAlerts(h.ctx); // a second registration must not double events
    const cli = openContext(h.ctx.config, { clock: h.clock, log: silentLogger });
    try {
      cli.ledger.adjust(accountId, -2 * USD, { type: "operator", memo: "svc admin credit debit" });
    } finally {
      cli.close();
    }
    expect(fired(accountId)).toEqual([{ balance_micro_usd: 4 * USD, threshold_micro_usd: DEFAULT }]);
  });
});
