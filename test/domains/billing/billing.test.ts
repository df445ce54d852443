/** GET /v1/billing/balance and GET /v1/billing/ledger: shapes, paging under writes, cursor refusals. */
import { afterEach, describe, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

describe("GET /v1/billing/balance", () => {
  test("balance, held and spendable in micro-USD", async () => {
    h = makeHarness();
    const { account, session } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 3_000_000);
    h.ctx.ledger.hold(account.id, 1_000_000, { expiresAt: h.clock.now() + 60_000 });
    const r = await h.json("GET", "/v1/billing/balance", { headers: bearer(session.token) });
    expect(r.body).toEqual({ balance_micro_usd: 3_000_000, held_micro_usd: 1_000_000, spendable_micro_usd: 2_000_000 });
    expect((await h.json("GET", "/v1/billing/balance")).status).toBe(401);
  });
});

describe("GET /v1/billing/ledger", () => {
  test("walks every entry exactly once across pages while new entries are written", async () => {
    h = makeHarness();
    const { account, session } = accountWithSession(h.ctx);
    for (let i = 1; i <= 25; i++) h.ctx.ledger.credit(account.id, i);
    const existing = h.ctx.db.query<{ id: string }, [string]>("SELECT id FROM ledger_entries WHERE account_id = ?").all(account.id).map((r) => r.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: { body: { entries: { id: string }[]; next_cursor: string | null; has_more: boolean } } = await h.json("GET", `/v1/billing/ledger?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { headers: bearer(session.token) });
      seen.push(...r.body.entries.map((e) => e.id));
      expect(r.body.has_more).toBe(r.body.next_cursor !== null);
      cursor = r.body.next_cursor;
      h.ctx.ledger.credit(account.id, 1000 + pages); // written between pages
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBe(4);
    expect(new Set(seen).size).toBe(seen.length); // nothing twice
    expect(seen.sort()).toEqual(existing.sort()); // everything that existed, exactly once
  });

  test("entries carry running totals, newest first; the default page is 200 and limit clamps at 1000", async () => {
    h = makeHarness();
    const { account, session } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 500, { type: "deposit", id: "dep_1" });
    h.ctx.ledger.debit(account.id, 200, { type: "usage", memo: "call" });
    const r = await h.json("GET", "/v1/billing/ledger", { headers: bearer(session.token) });
    expect(r.body.entries.map((e: { kind: string; balance_after_micro_usd: number }) => [e.kind, e.balance_after_micro_usd])).toEqual([
      ["debit", 300],
      ["credit", 500],
    ]);
    expect(r.body).toMatchObject({ next_cursor: null, has_more: false });
    expect(r.body.entries[1]).toMatchObject({ ref_type: "deposit", ref_id: "dep_1", amount_micro_usd: 500 });
    expect((await h.json("GET", "/v1/billing/ledger?limit=5000", { headers: bearer(session.token) })).status).toBe(200);
    for (const bad of ["0", "-3", "ten"]) {
      const e = await h.json("GET", `/v1/billing/ledger?limit=${bad}`, { headers: bearer(session.token) });
      expect(e.status).toBe(400);
      expect(e.body.error.param).toBe("limit");
    }
  });

  test("an unparseable, tampered or another account's cursor answers 400 and never restarts at page one", async () => {
    h = makeHarness();
    const mine = accountWithSession(h.ctx);
    const theirs = accountWithSession(h.ctx);
    for (const a of [mine.account.id, theirs.account.id]) for (let i = 0; i < 3; i++) h.ctx.ledger.credit(a, 1 + i);
    const theirPage = await h.json("GET", "/v1/billing/ledger?limit=1", { headers: bearer(theirs.session.token) });
    const foreign = theirPage.body.next_cursor as string;
    const myPage = await h.json("GET", "/v1/billing/ledger?limit=1", { headers: bearer(mine.session.token) });
    const own = myPage.body.next_cursor as string;
    for (const cursor of ["garbage", foreign, own.slice(0, -3), `${own}x`, "", "e30.AAAA"]) {
      const r = await h.json("GET", `/v1/billing/ledger?cursor=${encodeURIComponent(cursor)}`, { headers: bearer(mine.session.token) });
      expect(r.status).toBe(400);
      expect(r.body.error.type).toBe("invalid_cursor");
    }
    expect((await h.json("GET", `/v1/billing/ledger?cursor=${encodeURIComponent(own)}`, { headers: bearer(mine.session.token) })).body.entries.length).toBe(2);
  });
});
