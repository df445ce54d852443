import { afterEach, describe, expect, test } from "bun:test";
import { createAccount } from "../../../src/domains/accounts/service.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { ADMIN_TOKEN, bearer, type Harness, makeHarness, METRICS_TOKEN } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const admin = bearer(ADMIN_TOKEN);
const SHA = "ab".repeat(32);

describe("admin group mounting and auth", () => {
  test("without an admin token every admin route answers 404", async () => {
    h = makeHarness();
    for (const [method, path] of [["GET", "/v1/admin/metrics"], ["POST", "/v1/admin/accounts/suspend"], ["POST", "/v1/admin/denylist"], ["GET", "/v1/admin/denylist"]]) {
      const r = await h.json(method!, path!, { headers: bearer("anything") });
      expect(r.status).toBe(404);
      expect(r.body.error.type).toBe("not_found");
    }
  });

  test("a missing, malformed or wrong token answers 401 on every admin route", async () => {
    h = makeHarness({ admin: true });
    for (const [method, path] of [["GET", "/v1/admin/metrics"], ["POST", "/v1/admin/accounts/suspend"], ["POST", "/v1/admin/denylist"], ["GET", "/v1/admin/denylist"], ["DELETE", `/v1/admin/denylist/${SHA}`]]) {
      for (const headers of [{}, bearer("wrong"), bearer(METRICS_TOKEN), { authorization: ADMIN_TOKEN }]) {
        const r = await h.json(method!, path!, { headers, body: method === "POST" ? { bogus: true } : undefined });
        expect(r.status).toBe(401); // auth is checked before the body is validated
      }
    }
  });
});

describe("POST /v1/admin/accounts/suspend", () => {
  test("suspends and unsuspends; the account's keys and sessions are refused meanwhile", async () => {
    h = makeHarness({ admin: true });
    const { account } = accountWithSession(h.ctx);
    apiKeyFor(h.ctx, account.id);
    const on = await h.json("POST", "/v1/admin/accounts/suspend", { body: { account_id: account.id, suspended: true, reason: "chargeback" }, headers: admin });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ account_id: account.id, suspended: true, reason: "chargeback" });
    expect(on.body.suspended_at).toBe(new Date(h.clock.now()).toISOString());
    // Suspending again keeps the first timestamp.
    h.clock.advance(5000);
    const again = await h.json("POST", "/v1/admin/accounts/suspend", { body: { account_id: account.id, suspended: true }, headers: admin });
    expect(again.body.suspended_at).toBe(on.body.suspended_at);
    const off = await h.json("POST", "/v1/admin/accounts/suspend", { body: { account_id: account.id, suspended: false }, headers: admin });
    expect(off.body).toMatchObject({ suspended: false, suspended_at: null, reason: null });
    const audit = h.ctx.audit.recent();
    expect(audit.map((a) => a.action)).toEqual(["account.unsuspend", "account.suspend", "account.suspend"]);
    expect(audit.every((a) => a.actor === "admin_api" && a.target === account.id)).toBe(true);
  });

  test("unknown account answers 404", async () => {
    h = makeHarness({ admin: true });
    const r = await h.json("POST", "/v1/admin/accounts/suspend", { body: { account_id: "acct_nope", suspended: true }, headers: admin });
    expect(r.status).toBe(404);
  });
});

describe("denylist", () => {
  test("add (201, then 200 on re-add), list, remove, and 404 removing what is not listed", async () => {
    h = makeHarness({ admin: true });
    const add = await h.json("POST", "/v1/admin/denylist", { body: { sha256: SHA, reason: "spam" }, headers: admin });
    expect(add.status).toBe(201);
    expect(add.body).toMatchObject({ sha256: SHA, reason: "spam", hits: 0 });
    const readd = await h.json("POST", "/v1/admin/denylist", { body: { sha256: SHA }, headers: admin });
    expect(readd.status).toBe(200);
    expect(readd.body.reason).toBe("spam");
    expect((await h.json("GET", "/v1/admin/denylist", { headers: admin })).body.length).toBe(1);
    const bad = await h.json("POST", "/v1/admin/denylist", { body: { sha256: "abc" }, headers: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe("sha256");
    expect((await h.json("DELETE", `/v1/admin/denylist/${SHA}`, { headers: admin })).body).toEqual({ sha256: SHA, deleted: true });
    expect((await h.json("DELETE", `/v1/admin/denylist/${SHA}`, { headers: admin })).status).toBe(404);
    expect((await h.json("DELETE", "/v1/admin/denylist/zz", { headers: admin })).status).toBe(400);
  });
});

describe("GET /v1/admin/metrics", () => {
  test("paying accounts, spend by window, events by kind, billing_enforced", async () => {
    h = makeHarness({ admin: true, config: (c) => (c.billing.enforced = false) });
    const payer = createAccount(h.ctx);
    const granted = createAccount(h.ctx);
    createAccount(h.ctx);
    h.ctx.ledger.credit(payer.id, 5_000_000, { type: "deposit" });
    h.ctx.ledger.adjust(granted.id, 1_000_000, { memo: "trial" }); // a grant is not a payment
    h.ctx.ledger.debit(payer.id, 1_000_000);
    h.clock.advance(2 * 86_400_000);
    h.ctx.ledger.debit(payer.id, 250_000);
    h.ctx.tx.run(() => {
      h.ctx.outbox.emit("key_created", payer.id, {});
      h.ctx.outbox.emit("key_created", payer.id, {});
      h.ctx.outbox.emit("deposit_credited", payer.id, {});
    });
    const r = await h.json("GET", "/v1/admin/metrics", { headers: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      billing_enforced: false,
      accounts: { total: 3, suspended: 0, paying: 1 },
      spend_micro_usd: { "24h": 250_000, "7d": 1_250_000, "30d": 1_250_000, all_time: 1_250_000 },
      credited_micro_usd: { "24h": 0, "7d": 5_000_000, all_time: 5_000_000 },
      events_by_kind: { "24h": { key_created: 2, deposit_credited: 1 }, all_time: { key_created: 2, deposit_credited: 1 } },
    });
  });
});
