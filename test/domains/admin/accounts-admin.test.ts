/**
 * The operator's account routes through HTTP: GET /v1/admin/accounts (search, paging),
 * GET /v1/admin/accounts/:id, POST /v1/admin/accounts/:id/credit; and the admin class on every
 * route added for the console (accounts, nodes, providers, backup).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { toChecksumAddress } from "../../../src/core/eip191.ts";
import { MAX_MICRO_USD } from "../../../src/core/money.ts";
import { createAccount } from "../../../src/domains/accounts/service.ts";
import { accountForWallet } from "../../../src/domains/auth/signin.ts";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { apiKeyFor } from "../../support/fixtures.ts";
import { ADMIN_TOKEN, bearer, type Harness, makeHarness, METRICS_TOKEN } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());
const admin = bearer(ADMIN_TOKEN);
const USD = 1_000_000;

/** A wallet address from a short hex tag, padded: wallet("abc", 1) = 0xabc000…0001. */
const wallet = (tag: string, n: number) => `0x${tag}${n.toString(16).padStart(40 - tag.length, "0")}`;

/** n accounts, one second apart, oldest first. */
function accounts(n: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(createAccount(h.ctx).id);
    h.clock.advance(1000);
  }
  return ids;
}

const list = (query = "") => h.json("GET", `/v1/admin/accounts${query}`, { headers: admin });

describe("GET /v1/admin/accounts", () => {
  test("newest first, each with its wallets, credit and this month's spend; paged with after until has_more is false", async () => {
    h = makeHarness({ admin: true });
    const ids = accounts(4);
    const { accountId: withWallet } = accountForWallet(h.ctx, wallet("abc", 1));
    h.clock.advance(1000);
    h.ctx.ledger.credit(withWallet, 10 * USD, { type: "deposit" });
    h.ctx.ledger.debit(withWallet, 2 * USD); // November: not this month once the clock moves on
    h.clock.set(Date.UTC(2026, 11, 2, 9, 0, 0)); // December
    h.ctx.ledger.debit(withWallet, USD);
    h.ctx.ledger.hold(withWallet, 3 * USD, { expiresAt: h.clock.now() + 60_000 });

    const first = await list();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: "list", has_more: false });
    expect(first.body.data.map((a: { id: string }) => a.id)).toEqual([withWallet, ...ids.reverse()]);
    expect(first.body.data[0]).toEqual({
      id: withWallet,
      created_at: new Date(Date.UTC(2026, 10, 21, 12, 0, 4)).toISOString(),
      suspended: false,
      suspended_at: null,
      suspended_reason: null,
      wallets: [toChecksumAddress(wallet("abc", 1))],
      balance_micro_usd: 7 * USD,
      held_micro_usd: 3 * USD,
      spendable_micro_usd: 4 * USD,
      spent_this_month_micro_usd: USD,
    });
    expect(first.body.data[1]).toMatchObject({ wallets: [], balance_micro_usd: 0, spent_this_month_micro_usd: 0 });

    // Two at a time: every account once, in the same order, and an account created meanwhile does not shift the walk.
    const seen: string[] = [];
    let after = "";
    for (let page = 0; page < 5; page++) {
      const r = await list(`?limit=2${after ? `&after=${after}` : ""}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.data.map((a: { id: string }) => a.id));
      if (page === 0) createAccount(h.ctx);
      if (!r.body.has_more) break;
      after = r.body.data.at(-1).id;
    }
    expect(seen).toEqual(first.body.data.map((a: { id: string }) => a.id));
  });

  test("q finds accounts by the start of their id or of a wallet, full or partial, in any case", async () => {
    h = makeHarness({ admin: true });
    const { accountId: a } = accountForWallet(h.ctx, wallet("abc", 1));
    h.clock.advance(1000);
    const { accountId: b } = accountForWallet(h.ctx, wallet("def", 2));
    addWallet(h.ctx, b, wallet("abc", 3)); // b's second wallet also starts 0xabc
    h.clock.advance(1000);
    const { accountId: c } = accountForWallet(h.ctx, wallet("fed", 4));
    const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((x) => x.id);

    expect(ids(await list(`?q=${c.slice(0, 12).toUpperCase()}`))).toEqual([c]);
    expect(ids(await list(`?q=${wallet("def", 2).toUpperCase().replace("0X", "0x")}`))).toEqual([b]);
    expect(ids(await list("?q=0xABC"))).toEqual([b, a]);
    expect(ids(await list("?q=0x"))).toEqual([c, b, a]);
    expect(ids(await list(`?q=${wallet("bad", 9)}`))).toEqual([]);
    expect(ids(await list("?q=acct_nobody"))).toEqual([]);

    // A wallet search pages like the plain list.
    const one = await list("?q=0xabc&limit=1");
    expect(one.body).toMatchObject({ has_more: true, data: [{ id: b, wallets: [wallet("def", 2), wallet("abc", 3)].map(toChecksumAddress) }] });
    const two = await list(`?q=0xabc&limit=1&after=${b}`);
    expect(two.body).toMatchObject({ has_more: false, data: [{ id: a }] });
  });

  test("bad query parameters name the field", async () => {
    h = makeHarness({ admin: true });
    accounts(1);
    const cases: [string, string][] = [
      ["?q=0xnothex", "query.q"],
      [`?q=0x${"a".repeat(41)}`, "query.q"],
      ["?after=acct_unknown", "query.after"],
      ["?limit=0", "limit"],
      ["?limit=ten", "limit"],
      ["?limit=-1", "limit"],
      [`?q=${"a".repeat(101)}`, "query.q"],
    ];
    for (const [query, param] of cases) {
      const r = await list(query);
      expect([query, r.status]).toEqual([query, 400]);
      expect([query, r.body.error.param]).toEqual([query, param]);
    }
    // Above the maximum clamps (no error).
    expect((await list("?limit=100000")).status).toBe(200);
  });
});

describe("GET /v1/admin/accounts/:id", () => {
  test("the list's fields, the month, key counts and its latest 20 ledger entries; 404 for an unknown id", async () => {
    h = makeHarness({ admin: true });
    const { accountId } = accountForWallet(h.ctx, wallet("abc", 7));
    for (let i = 1; i <= 25; i++) h.ctx.ledger.credit(accountId, i, { type: "deposit", id: `dep_${i}` });
    apiKeyFor(h.ctx, accountId);
    apiKeyFor(h.ctx, accountId);
    apiKeyFor(h.ctx, accountId, { revoked: true });
    apiKeyFor(h.ctx, accountId, { expiresAt: h.clock.now() + 1000 });
    h.clock.advance(2000); // the last key has expired

    const r = await h.json("GET", `/v1/admin/accounts/${accountId}`, { headers: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: accountId,
      wallets: [toChecksumAddress(wallet("abc", 7))],
      balance_micro_usd: 325,
      spendable_micro_usd: 325,
      spent_this_month_micro_usd: 0,
      month: "2026-11",
      keys: { total: 4, active: 2 },
    });
    expect(r.body.recent_entries).toHaveLength(20);
    expect(r.body.recent_entries[0]).toMatchObject({ kind: "credit", amount_micro_usd: 25, balance_after_micro_usd: 325, ref_id: "dep_25" });
    expect(r.body.recent_entries.at(-1)).toMatchObject({ amount_micro_usd: 6 });

    const unknown = await h.json("GET", "/v1/admin/accounts/acct_nope", { headers: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.type).toBe("not_found");
  });
});

describe("POST /v1/admin/accounts/:id/credit", () => {
  const credit = (id: string, body: unknown) => h.json("POST", `/v1/admin/accounts/${id}/credit`, { headers: admin, body });

  test("grant and debit are audited ledger adjustments; the answer is the entry and the balance after it", async () => {
    h = makeHarness({ admin: true });
    const id = createAccount(h.ctx).id;
    const grant = await credit(id, { amount_micro_usd: 5 * USD, direction: "grant", reason: "trial credit" });
    expect(grant.status).toBe(200);
    expect(grant.body.entry).toMatchObject({ kind: "adjustment", amount_micro_usd: 5 * USD, balance_after_micro_usd: 5 * USD, ref_type: "operator", memo: "trial credit" });
    expect(grant.body.balance).toEqual({ balance_micro_usd: 5 * USD, held_micro_usd: 0, spendable_micro_usd: 5 * USD });

    h.ctx.ledger.hold(id, USD, { expiresAt: h.clock.now() + 60_000 });
    const debit = await credit(id, { amount_micro_usd: 1_500_000, direction: "debit", reason: "  correction  " });
    expect(debit.status).toBe(200);
    expect(debit.body.entry).toMatchObject({ kind: "adjustment", amount_micro_usd: -1_500_000, memo: "correction" });
    expect(debit.body.balance).toEqual({ balance_micro_usd: 3_500_000, held_micro_usd: USD, spendable_micro_usd: 2_500_000 });

    const audit = h.ctx.audit.recent();
    expect(audit.map((a) => [a.actor, a.action, a.target])).toEqual([
      ["admin_api", "credit.debit", id],
      ["admin_api", "credit.grant", id],
    ]);
    // An adjustment is not spend: this month's spend stays 0.
    expect((await h.json("GET", `/v1/admin/accounts/${id}`, { headers: admin })).body.spent_this_month_micro_usd).toBe(0);
  });

  test("a debit above what the account can spend is refused (409, not a payment demand) and changes nothing", async () => {
    h = makeHarness({ admin: true });
    const id = createAccount(h.ctx).id;
    h.ctx.ledger.credit(id, 4 * USD);
    h.ctx.ledger.hold(id, USD, { expiresAt: h.clock.now() + 60_000 });
    const over = await credit(id, { amount_micro_usd: 3 * USD + 1, direction: "debit", reason: "too much" });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ type: "insufficient_credit", param: "amount_micro_usd", required_micro_usd: 3 * USD + 1, spendable_micro_usd: 3 * USD });
    expect(over.body).not.toHaveProperty("accepts");
    expect(h.ctx.ledger.balance(id)).toEqual({ balance_micro_usd: 4 * USD, held_micro_usd: USD, spendable_micro_usd: 3 * USD });
    expect(h.ctx.audit.recent()).toEqual([]);
    // Exactly what it can spend is allowed.
    expect((await credit(id, { amount_micro_usd: 3 * USD, direction: "debit", reason: "all of it" })).body.balance).toEqual({ balance_micro_usd: USD, held_micro_usd: USD, spendable_micro_usd: 0 });
  });

  test("an unknown account answers 404 and a grant past the balance limit 409", async () => {
    h = makeHarness({ admin: true });
    for (const direction of ["grant", "debit"]) {
      const r = await credit("acct_nope", { amount_micro_usd: USD, direction, reason: "x" });
      expect(r.status).toBe(404);
    }
    const id = createAccount(h.ctx).id;
    h.ctx.ledger.credit(id, MAX_MICRO_USD);
    const r = await credit(id, { amount_micro_usd: 1, direction: "grant", reason: "one more" });
    expect(r.status).toBe(409);
    expect(r.body.error.type).toBe("balance_limit");
  });

  test("bad input names the field and writes nothing", async () => {
    h = makeHarness({ admin: true });
    const id = createAccount(h.ctx).id;
    const ok = { amount_micro_usd: USD, direction: "grant", reason: "fine" };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ok, amount_micro_usd: 0 }, "amount_micro_usd"],
      [{ ...ok, amount_micro_usd: -5 }, "amount_micro_usd"],
      [{ ...ok, amount_micro_usd: 1.5 }, "amount_micro_usd"],
      [{ ...ok, amount_micro_usd: "1000000" }, "amount_micro_usd"],
      [{ ...ok, amount_micro_usd: MAX_MICRO_USD + 1 }, "amount_micro_usd"],
      [{ direction: "grant", reason: "fine" }, "amount_micro_usd"],
      [{ ...ok, direction: "take" }, "direction"],
      [{ amount_micro_usd: USD, reason: "fine" }, "direction"],
      [{ ...ok, reason: "" }, "reason"],
      [{ ...ok, reason: "   " }, "reason"],
      [{ ...ok, reason: "r".repeat(501) }, "reason"],
      [{ ...ok, reason: 7 }, "reason"],
      [{ amount_micro_usd: USD, direction: "grant" }, "reason"],
      [{ ...ok, account_id: id }, "account_id"],
    ];
    for (const [body, param] of cases) {
      const r = await credit(id, body);
      expect([JSON.stringify(body).slice(0, 60), r.status, r.body.error?.param]).toEqual([JSON.stringify(body).slice(0, 60), 400, param]);
    }
    expect(h.ctx.ledger.balance(id).balance_micro_usd).toBe(0);
  });
});

describe("the routes added for the console are admin routes", () => {
  const ROUTES: [string, string, unknown?][] = [
    ["GET", "/v1/admin/accounts"],
    ["GET", "/v1/admin/accounts/acct_x"],
    ["POST", "/v1/admin/accounts/acct_x/credit", { amount_micro_usd: 1, direction: "grant", reason: "x" }],
    ["GET", "/v1/admin/nodes"],
    ["POST", "/v1/admin/nodes/node_x/draining", { set: true }],
    ["GET", "/v1/admin/providers"],
    ["GET", "/v1/admin/backup"],
  ];

  test("a missing, wrong or other operator token answers 401, before the body is looked at", async () => {
    h = makeHarness({ admin: true, metrics: true });
    for (const [method, path, body] of ROUTES) {
      for (const headers of [{}, bearer("wrong"), bearer(METRICS_TOKEN), { authorization: ADMIN_TOKEN }]) {
        const r = await h.json(method, path, { headers, body: body === undefined ? undefined : { bogus: true } });
        expect([method, path, r.status]).toEqual([method, path, 401]);
      }
    }
  });

  test("without an admin token they are not mounted (404) and absent from the OpenAPI document", async () => {
    h = makeHarness();
    for (const [method, path, body] of ROUTES) {
      const r = await h.json(method, path, { headers: bearer("anything"), body });
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
    const doc = (await h.json("GET", "/openapi.json")).body as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/v1/admin"))).toEqual([]);
  });
});
