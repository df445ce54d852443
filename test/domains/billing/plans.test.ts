/**
 * /v1/billing/plans and /v1/billing/subscription through HTTP: the catalogue, subscribing and
 * switching with the fee debited through the ledger, 402 with nothing recorded, cancellation
 * running to period end, renewal by the scheduler (charged once however often its job runs),
 * lapse to the default plan, and plan limits on API keys.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { Config } from "../../../src/config.ts";
import { planLimit } from "../../../src/domains/billing/limits.ts";
import { addMonths, RENEWAL_JOB, renewalKey, renewSubscription } from "../../../src/domains/billing/subscriptions.ts";
import { delegateKey, mintKey, rotateKey } from "../../../src/domains/keys/service.ts";
import { registerJobs } from "../../../src/jobs.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const USD = 1_000_000;
const DAY = 86_400_000;

const PLANS: Config["plans"] = [
  { id: "free", name: "Free", monthly_fee_micro_usd: 0, retention_days: 30, limits: { api_keys: 2 }, features: [] },
  { id: "pro", name: "Pro", monthly_fee_micro_usd: 20 * USD, retention_days: 365, limits: { api_keys: 50 }, features: ["priority_support"] },
  { id: "team", name: "Team", monthly_fee_micro_usd: 50 * USD, retention_days: 730, limits: {}, features: ["priority_support", "orgs"] },
];

function withPlans() {
  h = makeHarness({
    config: (c) => {
      c.plans = structuredClone(PLANS);
      // Tests move the clock by months; the sessions they use should outlive that.
      c.auth.session_idle_secs = c.auth.session_max_secs = 400 * 86_400;
    },
  });
  registerJobs(h.ctx);
}

function tenant(balance = 0) {
  const { account, session } = accountWithSession(h.ctx);
  if (balance) h.ctx.ledger.credit(account.id, balance, { type: "deposit" });
  return { accountId: account.id, auth: bearer(session.token) };
}

const sub = (auth: Record<string, string>) => h.json("GET", "/v1/billing/subscription", { headers: auth });
const subscribeTo = (auth: Record<string, string>, plan: unknown) => h.json("POST", "/v1/billing/subscription", { headers: auth, body: { plan } });
const cancel = (auth: Record<string, string>) => h.json("POST", "/v1/billing/subscription/cancel", { headers: auth });
const balance = (accountId: string) => h.ctx.ledger.balance(accountId).balance_micro_usd;
const iso = (ms: number) => new Date(ms).toISOString();

const debits = (accountId: string) =>
  h.ctx.db
    .query<{ amount_micro_usd: number; ref_type: string; ref_id: string }, [string]>(
      "SELECT amount_micro_usd, ref_type, ref_id FROM ledger_entries WHERE account_id = ? AND kind = 'debit' ORDER BY seq",
    )
    .all(accountId);
const charges = (accountId: string) =>
  h.ctx.db.query<{ period_start: number; fee_micro_usd: number }, [string]>("SELECT period_start, fee_micro_usd FROM subscription_charges WHERE account_id = ? ORDER BY period_start").all(accountId);
const renewalJobs = () => h.ctx.db.query<{ run_at: number; unique_key: string; payload: string }, [string]>("SELECT run_at, unique_key, payload FROM jobs WHERE kind = ? ORDER BY run_at").all(RENEWAL_JOB);
const count = (table: string) => h.ctx.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;

describe("GET /v1/billing/plans", () => {
  test("the default catalogue is one free plan, public, under a named key", async () => {
    h = makeHarness();
    const r = await h.json("GET", "/v1/billing/plans");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      plans: [{ id: "free", name: "Free", monthly_fee_micro_usd: 0, retention_days: 30, limits: {}, features: [] }],
      default_plan_id: "free",
    });
  });

  test("serves the configured catalogue in order, with fees, retention, limits and features", async () => {
    withPlans();
    const r = await h.json("GET", "/v1/billing/plans");
    expect(r.body.plans).toEqual(PLANS);
    expect(r.body.default_plan_id).toBe("free");
    const doc = await h.json("GET", "/openapi.json");
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(["/v1/billing/plans", "/v1/billing/subscription", "/v1/billing/subscription/cancel"]));
  });

  test("a catalogue without a zero-fee plan has no default: unsubscribed accounts are on no plan", async () => {
    h = makeHarness({ config: (c) => (c.plans = structuredClone(PLANS.slice(1))) });
    const { auth, accountId } = tenant();
    expect((await h.json("GET", "/v1/billing/plans")).body.default_plan_id).toBeNull();
    const r = await sub(auth);
    expect(r.body).toMatchObject({ subscribed: false, plan_id: null, plan: null, status: "none", renews: false });
    expect(planLimit(h.ctx, accountId, "api_keys")).toBeNull();
  });
});

describe("GET and POST /v1/billing/subscription", () => {
  test("an account that never subscribed is on the default plan, with no period and nothing to renew", async () => {
    withPlans();
    const { auth } = tenant();
    const r = await sub(auth);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: null,
      subscribed: false,
      plan_id: "free",
      plan: PLANS[0],
      status: "active",
      started_at: null,
      current_period_start: null,
      current_period_end: null,
      renews: false,
      next_fee_micro_usd: null,
      cancelled_at: null,
      last_charge: null,
      previous: null,
    });
  });

  test("subscribing debits the fee through the ledger, starts a month-long period and schedules its renewal", async () => {
    withPlans();
    const { auth, accountId } = tenant(30 * USD);
    const now = h.clock.now();
    const end = Date.UTC(2026, 11, 21, 12); // the harness clock starts 2026-11-21T12:00Z
    const r = await subscribeTo(auth, "pro");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      subscribed: true,
      plan_id: "pro",
      plan: PLANS[1],
      status: "active",
      started_at: iso(now),
      current_period_start: iso(now),
      current_period_end: iso(end),
      renews: true,
      next_fee_micro_usd: 20 * USD,
      cancelled_at: null,
      last_charge: { period_start: iso(now), period_end: iso(end), fee_micro_usd: 20 * USD, charged_at: iso(now) },
    });
    expect(r.body.id).toMatch(/^sub_/);
    expect(balance(accountId)).toBe(10 * USD);
    const [entry] = debits(accountId);
    expect(entry).toEqual({ amount_micro_usd: 20 * USD, ref_type: "subscription", ref_id: r.body.id });
    const ledgerEntry = h.ctx.db.query<{ id: string }, [string]>("SELECT id FROM ledger_entries WHERE account_id = ? AND kind = 'debit'").get(accountId)!;
    expect(r.body.last_charge.ledger_entry_id).toBe(ledgerEntry.id);
    expect(renewalJobs()).toEqual([{ run_at: end, unique_key: renewalKey(accountId, end), payload: JSON.stringify({ subscription_id: r.body.id, period_end: end }) }]);
    expect(await sub(auth)).toMatchObject({ body: r.body });
  });

  test("402 insufficient_credit when the balance cannot cover the fee, and nothing is recorded", async () => {
    withPlans();
    const { auth, accountId } = tenant(20 * USD - 1);
    const before = { subs: count("subscriptions"), charges: count("subscription_charges"), entries: count("ledger_entries"), jobs: renewalJobs().length };
    const r = await subscribeTo(auth, "pro");
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ type: "insufficient_credit", required_micro_usd: 20 * USD, spendable_micro_usd: 20 * USD - 1 });
    expect({ subs: count("subscriptions"), charges: count("subscription_charges"), entries: count("ledger_entries"), jobs: renewalJobs().length }).toEqual(before);
    expect(balance(accountId)).toBe(20 * USD - 1);
    expect((await sub(auth)).body).toMatchObject({ subscribed: false, plan_id: "free" });
  });

  test("a failed switch leaves the current plan exactly as it was", async () => {
    withPlans();
    const { auth, accountId } = tenant(30 * USD);
    const pro = await subscribeTo(auth, "pro");
    const r = await subscribeTo(auth, "team");
    expect(r.status).toBe(402);
    expect((await sub(auth)).body).toEqual(pro.body);
    expect(balance(accountId)).toBe(10 * USD);
    expect(renewalJobs().length).toBe(1);
  });

  test("subscribing again to the plan in force charges nothing", async () => {
    withPlans();
    const { auth, accountId } = tenant(100 * USD);
    const first = await subscribeTo(auth, "pro");
    h.clock.advance(DAY);
    const again = await subscribeTo(auth, "pro");
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(debits(accountId).length).toBe(1);
    // The default plan, chosen while on it, changes nothing either.
    const other = tenant(0);
    expect((await subscribeTo(other.auth, "free")).body).toMatchObject({ subscribed: false, plan_id: "free" });
    expect(count("subscriptions")).toBe(1);
  });

  test("switching mid-period starts a new full period now at the new plan's full fee; the old term ends as switched", async () => {
    withPlans();
    const { auth, accountId } = tenant(100 * USD);
    const pro = await subscribeTo(auth, "pro");
    const oldEnd = Date.parse(pro.body.current_period_end);
    h.clock.advance(10 * DAY);
    const now = h.clock.now();
    const team = await subscribeTo(auth, "team");
    expect(team.status).toBe(200);
    expect(team.body).toMatchObject({
      plan_id: "team",
      current_period_start: iso(now),
      current_period_end: iso(addMonths(now, 1)),
      next_fee_micro_usd: 50 * USD,
      previous: { id: pro.body.id, plan_id: "pro", ended_at: iso(now), reason: "switched" },
    });
    expect(balance(accountId)).toBe(100 * USD - 20 * USD - 50 * USD);
    // The old period's renewal is gone; the new one is due at the new period's end.
    expect(renewalJobs().map((j) => j.run_at)).toEqual([addMonths(now, 1)]);
    expect(renewalJobs()[0]!.run_at).not.toBe(oldEnd);
    // Back to the default plan: ends the paid term now, no fee, no renewal.
    const free = await subscribeTo(auth, "free");
    expect(free.body).toMatchObject({ subscribed: false, plan_id: "free", previous: { id: team.body.id, reason: "switched" } });
    expect(renewalJobs()).toEqual([]);
    expect(balance(accountId)).toBe(30 * USD);
  });

  test("bad input names the field; another credential class is refused", async () => {
    withPlans();
    const { auth } = tenant(100 * USD);
    const cases: [unknown, string][] = [
      [{ plan: "platinum" }, "plan"],
      [{ plan: 5 }, "plan"],
      [{ plan: "" }, "plan"],
      [{}, "plan"],
      [{ plan: "pro", seats: 3 }, "seats"],
    ];
    for (const [body, param] of cases) {
      const r = await h.json("POST", "/v1/billing/subscription", { headers: auth, body });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    expect(count("subscriptions")).toBe(0);
    expect((await h.json("GET", "/v1/billing/subscription")).status).toBe(401);
    expect((await h.json("POST", "/v1/billing/subscription/cancel")).status).toBe(401);
  });
});

describe("POST /v1/billing/subscription/cancel", () => {
  test("the plan runs to the end of the paid period, is not renewed, then the account is on the default plan", async () => {
    withPlans();
    const { auth, accountId } = tenant(100 * USD);
    const pro = await subscribeTo(auth, "pro");
    const end = Date.parse(pro.body.current_period_end);
    h.clock.advance(5 * DAY);
    const now = h.clock.now();
    const r = await cancel(auth);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ plan_id: "pro", status: "cancelled", cancelled_at: iso(now), current_period_end: iso(end), renews: false, next_fee_micro_usd: null });
    expect(planLimit(h.ctx, accountId, "api_keys")).toBe(50);
    expect((await cancel(auth)).body).toEqual(r.body); // cancelling twice changes nothing

    // Past the period end the account is on the default plan, even before the job records it.
    h.clock.set(end);
    expect((await sub(auth)).body).toMatchObject({ subscribed: false, plan_id: "free", previous: { id: pro.body.id, plan_id: "pro", ended_at: iso(end), reason: "cancelled" } });
    expect(planLimit(h.ctx, accountId, "api_keys")).toBe(2);
    await h.ctx.scheduler.runDue();
    expect(debits(accountId).length).toBe(1);
    expect(balance(accountId)).toBe(80 * USD);
    expect(renewalJobs()).toEqual([]);
    const row = h.ctx.db.query<{ status: string; end_reason: string; ended_at: number }, [string]>("SELECT status, end_reason, ended_at FROM subscriptions WHERE id = ?").get(pro.body.id);
    expect(row).toEqual({ status: "ended", end_reason: "cancelled", ended_at: end });

    const none = await cancel(auth);
    expect(none.status).toBe(409);
    expect(none.body.error.type).toBe("no_subscription");
  });

  test("subscribing to the cancelled plan before its period ends resumes renewal without a second charge", async () => {
    withPlans();
    const { auth, accountId } = tenant(100 * USD);
    const pro = await subscribeTo(auth, "pro");
    await cancel(auth);
    h.clock.advance(DAY);
    const resumed = await subscribeTo(auth, "pro");
    expect(resumed.body).toMatchObject({ id: pro.body.id, status: "active", renews: true, cancelled_at: null, current_period_end: pro.body.current_period_end });
    expect(debits(accountId).length).toBe(1);
    h.clock.set(Date.parse(pro.body.current_period_end));
    await h.ctx.scheduler.runDue();
    expect(debits(accountId).length).toBe(2);
  });
});

describe("renewal", () => {
  test("at period end the next fee is charged once and the next period starts, however often the job runs", async () => {
    withPlans();
    const { auth, accountId } = tenant(100 * USD);
    const pro = await subscribeTo(auth, "pro");
    const end1 = Date.parse(pro.body.current_period_end);
    const end2 = addMonths(Date.parse(pro.body.started_at), 2);
    // A second copy of the job (as after a crash between charging and deleting it).
    h.ctx.scheduler.schedule(RENEWAL_JOB, { subscription_id: pro.body.id, period_end: end1 }, { runAt: end1, uniqueKey: "duplicate" });
    h.clock.set(end1);
    await h.ctx.scheduler.runDue();
    expect(renewSubscription(h.ctx, pro.body.id, end1)).toBe("skipped");
    expect(debits(accountId).map((d) => d.amount_micro_usd)).toEqual([20 * USD, 20 * USD]);
    expect(charges(accountId).map((c) => c.period_start)).toEqual([Date.parse(pro.body.started_at), end1]);
    expect(balance(accountId)).toBe(60 * USD);
    const r = await sub(auth);
    expect(r.body).toMatchObject({ id: pro.body.id, status: "active", current_period_start: iso(end1), current_period_end: iso(end2), renews: true });
    expect(r.body.last_charge).toMatchObject({ period_start: iso(end1), period_end: iso(end2), fee_micro_usd: 20 * USD });
    expect(renewalJobs().map((j) => j.run_at)).toEqual([end2]);
  });

  test("a renewal the balance cannot cover lapses to the default plan, once, without retrying", async () => {
    withPlans();
    const { auth, accountId } = tenant(30 * USD);
    const pro = await subscribeTo(auth, "pro");
    const end = Date.parse(pro.body.current_period_end);
    h.clock.set(end);
    await h.ctx.scheduler.runDue();
    expect(balance(accountId)).toBe(10 * USD);
    expect(debits(accountId).length).toBe(1);
    expect((await sub(auth)).body).toMatchObject({ subscribed: false, plan_id: "free", previous: { id: pro.body.id, plan_id: "pro", ended_at: iso(end), reason: "insufficient_credit" } });
    expect(renewalJobs()).toEqual([]);
    expect(h.ctx.db.query("SELECT 1 FROM jobs WHERE kind = ? AND status = 'failed'").get(RENEWAL_JOB)).toBeNull();
    expect(planLimit(h.ctx, accountId, "api_keys")).toBe(2);
    // After a deposit the account may subscribe again.
    h.ctx.ledger.credit(accountId, 20 * USD, { type: "deposit" });
    expect((await subscribeTo(auth, "pro")).body).toMatchObject({ subscribed: true, plan_id: "pro" });
  });

  test("a renewal that runs late charges one fee, for the period that contains now", async () => {
    withPlans();
    const { auth, accountId } = tenant(100 * USD);
    const pro = await subscribeTo(auth, "pro");
    const start = Date.parse(pro.body.started_at);
    h.clock.set(addMonths(start, 3) + DAY); // svc was down for three months
    await h.ctx.scheduler.runDue();
    expect(debits(accountId).length).toBe(2);
    expect((await sub(auth)).body).toMatchObject({ current_period_start: iso(addMonths(start, 3)), current_period_end: iso(addMonths(start, 4)) });
  });

  test("renewal charges the plan's current fee; a plan withdrawn from the catalogue ends at renewal", async () => {
    withPlans();
    const a = tenant(100 * USD);
    const b = tenant(100 * USD);
    const pa = await subscribeTo(a.auth, "pro");
    await subscribeTo(b.auth, "team");
    h.ctx.config.plans = [PLANS[0]!, { ...PLANS[1]!, monthly_fee_micro_usd: 25 * USD }];
    expect((await sub(a.auth)).body.next_fee_micro_usd).toBe(25 * USD);
    expect((await sub(b.auth)).body).toMatchObject({ plan_id: "team", plan: null, renews: false, next_fee_micro_usd: null });
    h.clock.set(Date.parse(pa.body.current_period_end));
    await h.ctx.scheduler.runDue();
    expect(debits(a.accountId).map((d) => d.amount_micro_usd)).toEqual([20 * USD, 25 * USD]);
    expect((await sub(b.auth)).body).toMatchObject({ subscribed: false, previous: { plan_id: "team", reason: "plan_withdrawn" } });
  });

  test("periods are calendar months anchored on the start day", () => {
    const jan31 = Date.UTC(2027, 0, 31, 9, 30);
    expect(iso(addMonths(jan31, 1))).toBe("2027-02-28T09:30:00.000Z");
    expect(iso(addMonths(jan31, 2))).toBe("2027-03-31T09:30:00.000Z");
    expect(iso(addMonths(Date.UTC(2028, 0, 31), 1))).toBe("2028-02-29T00:00:00.000Z");
    expect(iso(addMonths(Date.UTC(2026, 11, 15), 1))).toBe("2027-01-15T00:00:00.000Z");
  });
});

describe("plan limits", () => {
  test("api_keys caps a person's live standard keys; revoking frees a slot; a larger plan lifts it", async () => {
    withPlans();
    const { auth, accountId } = tenant(100 * USD);
    expect(planLimit(h.ctx, accountId, "api_keys")).toBe(2);
    expect(planLimit(h.ctx, accountId, "webhooks")).toBeNull();
    const mint = () => h.json("POST", "/v1/keys", { headers: auth, body: {} });
    const first = await mint();
    expect(first.status).toBe(201);
    expect((await mint()).status).toBe(201);
    const third = await mint();
    expect(third.status).toBe(409);
    expect(third.body.error).toMatchObject({ type: "plan_limit_reached", limit: "api_keys", max: 2, in_use: 2, plan_id: "free" });
    expect(h.ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM api_keys WHERE account_id = ?").get(accountId)!.n).toBe(2);

    expect((await h.json("DELETE", `/v1/keys/${first.body.id}`, { headers: auth })).status).toBe(200);
    expect((await mint()).status).toBe(201);
    expect((await mint()).status).toBe(409);

    await subscribeTo(auth, "pro");
    expect(planLimit(h.ctx, accountId, "api_keys")).toBe(50);
    expect((await mint()).status).toBe(201);
  });

  test("rotation, delegated, mandate and ghost keys do not count against api_keys; expired keys free their slot", async () => {
    withPlans();
    const { auth, accountId } = tenant(100 * USD);
    const a = mintKey(h.ctx, { accountId, scopes: ["*"] }).view;
    mintKey(h.ctx, { accountId, expiresAt: h.clock.now() + 60_000 });
    expect((await h.json("POST", "/v1/keys", { headers: auth, body: {} })).status).toBe(409);
    // At the limit: rotating replaces a key, delegating adds a bounded child.
    const rotated = rotateKey(h.ctx, accountId, a.id).view;
    delegateKey(h.ctx, rotated.id, {});
    const ghost = await h.json("POST", "/v1/ghost/sessions", { headers: auth, body: { lifetime_secs: 3600 } });
    expect(ghost.status).toBe(201);
    h.clock.advance(61_000);
    expect((await h.json("POST", "/v1/keys", { headers: auth, body: {} })).status).toBe(201);
  });
});
