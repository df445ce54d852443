/**
 * Sending post: the postage moves from sender to recipient through the ledger in one
 * transaction, with a signed content-free receipt of kind post; refusals (402, 403, 404, 409,
 * 429) charge nothing; concurrent sends never overspend and never credit twice.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { bearer, type Harness } from "../../support/harness.ts";
import { apiKeyFor } from "../../support/fixtures.ts";
import { balance, entries, party, POSTAGE, postHarness, send, USD, verifyReceipt } from "./post-support.ts";

let h: Harness;
afterEach(() => h?.close());

const BODY = "SECRET-BODY-4e1f meet at the usual place";
const SUBJECT = "SECRET-SUBJECT-90ab plans";

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

describe("a delivered message", () => {
  test("moves exactly the postage from sender to recipient, with a signed receipt of kind post", async () => {
    h = postHarness();
    const alice = await party(h, "alice", USD);
    const bob = await party(h, "bob", 0, { postage_micro_usd: 125_000 });
    const r = await send(h, alice, { to: "bob", subject: SUBJECT, body: BODY });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ direction: "out", from: "alice", to: "bob", subject: SUBJECT, body: BODY, postage_micro_usd: 125_000, in_reply_to: null, read_at: null });
    expect(r.body.id).toMatch(/^pm_/);
    expect(r.body.thread_id).toMatch(/^thr_/);
    expect(r.body.receipt_id).toBe(r.body.receipt.receipt_id);

    expect(balance(h, alice)).toEqual({ balance_micro_usd: USD - 125_000, held_micro_usd: 0, spendable_micro_usd: USD - 125_000 });
    expect(balance(h, bob)).toEqual({ balance_micro_usd: 125_000, held_micro_usd: 0, spendable_micro_usd: 125_000 });
    // The sender: deposit, then one debit (the postage was reserved in memory); the recipient: one credit naming the message.
    expect(entries(h, alice).map((e) => [e.kind, e.amount_micro_usd])).toEqual([
      ["credit", USD],
      ["debit", 125_000],
    ]);
    expect(entries(h, bob)).toEqual([{ kind: "credit", amount_micro_usd: 125_000, ref_type: "post", ref_id: r.body.id }]);

    const payload = await verifyReceipt(h, r.body.receipt);
    expect(payload).toMatchObject({ type: "receipt", id: r.body.receipt.receipt_id, kind: "post", status: "delivered", account: alice.accountId, key_id: alice.keyId, resource: r.body.id, cost_micro_usd: 125_000 });
    expect(payload.units).toMatchObject({ from: "alice", to: "bob", postage_micro_usd: 125_000, body_chars: BODY.length });
    expect(payload.attestations.message).toEqual({ message_id: r.body.id, thread_id: r.body.thread_id, body_sha256: sha256(BODY), subject_sha256: sha256(SUBJECT) });
    // Content-free: fingerprints only.
    const text = Buffer.from(r.body.receipt.receipt, "base64url").toString("utf8");
    expect(text).not.toContain("SECRET-");

    const event = h.ctx.db.query<{ kind: string; cost_micro_usd: number }, [string]>("SELECT kind, cost_micro_usd FROM usage_events WHERE account_id = ?").all(alice.accountId);
    expect(event).toEqual([{ kind: "post", cost_micro_usd: 125_000 }]);
  });

  test("subject and body are sealed at rest", async () => {
    h = postHarness();
    const alice = await party(h, "alice", USD);
    await party(h, "bob");
    expect((await send(h, alice, { to: "bob", subject: SUBJECT, body: BODY })).status).toBe(201);
    const row = h.ctx.db.query<Record<string, unknown>, []>("SELECT * FROM post_messages").get()!;
    expect(JSON.stringify(row)).not.toContain("SECRET-");
    expect(String(row.body_sealed)).toMatch(/^v1\./);
  });

  test("zero postage delivers with a receipt and moves no money", async () => {
    h = postHarness();
    const alice = await party(h, "alice");
    const bob = await party(h, "bob", 0, { postage_micro_usd: 0 });
    const r = await send(h, alice, { to: "bob", body: "free" });
    expect(r.status).toBe(201);
    expect((await verifyReceipt(h, r.body.receipt)).cost_micro_usd).toBe(0);
    expect(entries(h, alice)).toEqual([]);
    expect(entries(h, bob)).toEqual([]);
  });
});

describe("refusals charge nothing", () => {
  async function pair(recipientSettings: Record<string, unknown> = {}, credit = USD) {
    h = postHarness();
    const alice = await party(h, "alice", credit);
    const bob = await party(h, "bob", 0, recipientSettings);
    return { alice, bob };
  }

  const nothingMoved = (alice: Awaited<ReturnType<typeof party>>, bob: Awaited<ReturnType<typeof party>>, credit = USD) => {
    expect(balance(h, alice)).toEqual({ balance_micro_usd: credit, held_micro_usd: 0, spendable_micro_usd: credit });
    expect(entries(h, bob)).toEqual([]);
    expect(h.ctx.db.query("SELECT 1 FROM post_messages").all()).toEqual([]);
  };

  test("402 insufficient_credit when the postage is not covered", async () => {
    const { alice, bob } = await pair({}, POSTAGE - 1);
    const r = await send(h, alice, { to: "bob", body: "hi" });
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ type: "insufficient_credit", required_micro_usd: POSTAGE, spendable_micro_usd: POSTAGE - 1 });
    nothingMoved(alice, bob, POSTAGE - 1);
  });

  test.each([
    ["accept: nobody", { accept: "nobody" }, "not_accepting"],
    ["accept: allow_list without the sender", { accept: "allow_list", allow: ["carol"] }, "sender_refused"],
    ["the sender on the block list", { block: ["alice"] }, "sender_refused"],
  ])("403 post_refused: %s", async (_, settings, reason) => {
    const { alice, bob } = await pair(settings);
    const r = await send(h, alice, { to: "bob", body: "hi" });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: "post_refused", reason, param: "to" });
    nothingMoved(alice, bob);
  });

  test("an allow list admits the handles on it; the block list wins over accept: anyone", async () => {
    const { alice, bob } = await pair({ accept: "allow_list", allow: ["alice"] });
    expect((await send(h, alice, { to: "bob", body: "on the list" })).status).toBe(201);
    await h.json("PUT", "/v1/post/settings", { ...bob.auth, body: { accept: "anyone", allow: [], block: ["alice"] } });
    expect((await send(h, alice, { to: "bob", body: "blocked now" })).status).toBe(403);
  });

  test("403 handle_required for a sender without a handle; 404 for an unknown recipient; 400 for oneself", async () => {
    h = postHarness();
    const anon = await party(h, null, USD);
    const alice = await party(h, "alice", USD);
    await party(h, "bob");
    const noHandle = await send(h, anon, { to: "bob", body: "hi" });
    expect(noHandle.status).toBe(403);
    expect(noHandle.body.error.type).toBe("handle_required");
    const unknown = await send(h, alice, { to: "nobody-here", body: "hi" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ type: "not_found", param: "to" });
    const self = await send(h, alice, { to: "alice", body: "hi" });
    expect(self.status).toBe(400);
    expect(self.body.error.param).toBe("to");
    expect(balance(h, alice).balance_micro_usd).toBe(USD);
  });

  test("409 postage_above_max when the recipient asks more than the sender agreed to", async () => {
    const { alice, bob } = await pair({ postage_micro_usd: 500_000 });
    const r = await send(h, alice, { to: "bob", body: "hi", max_postage_micro_usd: 499_999 });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: "postage_above_max", postage_micro_usd: 500_000 });
    nothingMoved(alice, bob);
    expect((await send(h, alice, { to: "bob", body: "hi", max_postage_micro_usd: 500_000 })).status).toBe(201);
  });

  test("429 inbox_full at the cap; deleting a message makes room", async () => {
    h = postHarness({ config: (c) => (c.post.inbox_max_messages = 2) });
    const alice = await party(h, "alice", USD);
    const bob = await party(h, "bob");
    const first = await send(h, alice, { to: "bob", body: "1" });
    await send(h, alice, { to: "bob", body: "2" });
    const full = await send(h, alice, { to: "bob", body: "3" });
    expect(full.status).toBe(429);
    expect(full.body.error).toMatchObject({ type: "inbox_full", limit: 2 });
    expect(balance(h, alice).balance_micro_usd).toBe(USD - 2 * POSTAGE);
    expect(balance(h, bob).balance_micro_usd).toBe(2 * POSTAGE);
    // The sender deleting its copy frees nothing in bob's inbox; bob deleting one does.
    await h.json("DELETE", `/v1/post/messages/${first.body.id}`, alice.auth);
    expect((await send(h, alice, { to: "bob", body: "3" })).status).toBe(429);
    await h.json("DELETE", `/v1/post/messages/${first.body.id}`, bob.auth);
    expect((await send(h, alice, { to: "bob", body: "3" })).status).toBe(201);
  });

  test.each([
    ["a missing body", { to: "bob" }, "body"],
    ["an empty body", { to: "bob", body: "" }, "body"],
    ["a body too long", { to: "bob", body: "x".repeat(20_001) }, "body"],
    ["a subject too long", { to: "bob", body: "hi", subject: "s".repeat(201) }, "subject"],
    ["a malformed handle", { to: "Bob!", body: "hi" }, "to"],
    ["max postage above 1.00 USD", { to: "bob", body: "hi", max_postage_micro_usd: 1_000_001 }, "max_postage_micro_usd"],
    ["an unknown field", { to: "bob", body: "hi", cc: ["carol"] }, "cc"],
  ])("400 for %s, naming the field", async (_, body, field) => {
    const { alice, bob } = await pair();
    const r = await send(h, alice, body);
    expect(r.status).toBe(400);
    expect(String(r.body.error.param)).toContain(field);
    nothingMoved(alice, bob);
  });

  test("a key that may not spend (revoked) is refused before anything moves", async () => {
    const { alice, bob } = await pair();
    const revoked = apiKeyFor(h.ctx, alice.accountId, { revoked: true });
    const r = await h.json("POST", "/v1/post/messages", { headers: bearer(revoked.token), body: { to: "bob", body: "hi" } });
    expect(r.status).toBe(401);
    nothingMoved(alice, bob);
  });
});

describe("concurrency", () => {
  test("N concurrent sends with credit for fewer: exactly as many delivered as paid, no overspend, one credit per delivered message", async () => {
    h = postHarness();
    const N = 20;
    const PAID = 7;
    const alice = await party(h, "alice", PAID * POSTAGE + POSTAGE - 1);
    const bob = await party(h, "bob");
    const results = await Promise.all(Array.from({ length: N }, (_, i) => send(h, alice, { to: "bob", body: `message ${i}` })));
    const delivered = results.filter((r) => r.status === 201);
    expect(delivered).toHaveLength(PAID);
    expect(results.filter((r) => r.status === 402)).toHaveLength(N - PAID);

    expect(balance(h, alice)).toEqual({ balance_micro_usd: POSTAGE - 1, held_micro_usd: 0, spendable_micro_usd: POSTAGE - 1 });
    expect(balance(h, bob)).toEqual({ balance_micro_usd: PAID * POSTAGE, held_micro_usd: 0, spendable_micro_usd: PAID * POSTAGE });
    const credits = entries(h, bob);
    expect(credits.every((e) => e.kind === "credit" && e.amount_micro_usd === POSTAGE && e.ref_type === "post")).toBe(true);
    expect(credits.map((e) => e.ref_id).sort()).toEqual(delivered.map((r) => r.body.id).sort());
    const debits = entries(h, alice).filter((e) => e.kind === "debit");
    expect(debits.reduce((s, e) => s + e.amount_micro_usd, 0)).toBe(PAID * POSTAGE);
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM post_messages").get()!.n).toBe(PAID);
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM usage_events WHERE kind = 'post'").get()!.n).toBe(PAID);
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM holds WHERE status = 'open'").get()!.n).toBe(0);
  });

  test("concurrent sends into an inbox with room for fewer: the rest get 429, their holds released, nothing charged for them", async () => {
    h = postHarness({ config: (c) => (c.post.inbox_max_messages = 4) });
    const senders = await Promise.all(["s-one", "s-two", "s-three"].map((handle) => party(h, handle, USD)));
    const bob = await party(h, "bob");
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => send(h, senders[i % 3]!, { to: "bob", body: `m${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    expect(results.filter((r) => r.status === 429)).toHaveLength(8);
    const spent = senders.reduce((s, p) => s + (USD - balance(h, p).balance_micro_usd), 0);
    expect(spent).toBe(4 * POSTAGE);
    for (const p of senders) expect(balance(h, p).held_micro_usd).toBe(0);
    expect(balance(h, bob).balance_micro_usd).toBe(4 * POSTAGE);
    expect(entries(h, bob)).toHaveLength(4);
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM usage_events WHERE kind = 'post'").get()!.n).toBe(4);
  });
});
