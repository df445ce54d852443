/**
 * Reading post: inbox and outbox paged by keyset cursor (every message exactly once), one
 * message for its two parties only, read, per-side delete, threads, and another tenant's ids
 * answering the same 404 as unknown ones.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { Harness } from "../../support/harness.ts";
import { type Party, party, postHarness, send, USD } from "./post-support.ts";

let h: Harness;
afterEach(() => h?.close());

async function walk(path: string, p: Party, limit: number) {
  const ids: string[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  do {
    const q: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const r = await h.json("GET", `${path}${q}`, p.auth);
    expect(r.status).toBe(200);
    ids.push(...r.body.messages.map((m: any) => m.id));
    pages.push(r.body.messages.length);
    cursor = r.body.next_cursor;
  } while (cursor !== null);
  return { ids, pages };
}

describe("inbox and outbox", () => {
  test("walking every page returns every message exactly once, newest first", async () => {
    h = postHarness();
    const alice = await party(h, "alice", USD);
    const bob = await party(h, "bob", USD);
    const sent: string[] = [];
    for (let i = 0; i < 23; i++) {
      h.clock.advance(1000);
      const r = await send(h, alice, { to: "bob", body: `message ${i}` });
      expect(r.status).toBe(201);
      sent.push(r.body.id);
    }
    // Bob's own mail to alice is in his outbox, not his inbox.
    const reply = await send(h, bob, { to: "alice", body: "back" });

    const inbox = await walk("/v1/post/inbox", bob, 5);
    expect(inbox.ids).toEqual([...sent].reverse());
    expect(inbox.pages).toEqual([5, 5, 5, 5, 3]);
    const outbox = await walk("/v1/post/outbox", alice, 7);
    expect(outbox.ids).toEqual([...sent].reverse());
    expect(outbox.pages).toEqual([7, 7, 7, 2]);
    expect((await walk("/v1/post/outbox", bob, 50)).ids).toEqual([reply.body.id]);
    // An exact multiple of the page size ends with next_cursor null, not an empty page.
    expect((await walk("/v1/post/inbox", alice, 1)).pages).toEqual([1]);

    const first = await h.json("GET", "/v1/post/inbox", bob.auth);
    expect(first.body.messages).toHaveLength(23);
    expect(first.body.next_cursor).toBeNull();
    expect(first.body.unread).toBe(23);
    expect(first.body.messages[0]).toMatchObject({ direction: "in", from: "alice", to: "bob", body: "message 22", receipt_id: null, read_at: null });
    const out = await h.json("GET", "/v1/post/outbox", alice.auth);
    expect(Object.keys(out.body).sort()).toEqual(["messages", "next_cursor"]);
    expect(out.body.messages[0]).toMatchObject({ direction: "out", body: "message 22" });
    expect(out.body.messages[0].receipt_id).toMatch(/^rcpt_/);
  });

  test("a message delivered while paging shows on the first page, never mid-walk", async () => {
    h = postHarness();
    const alice = await party(h, "alice", USD);
    const bob = await party(h, "bob");
    for (let i = 0; i < 4; i++) await send(h, alice, { to: "bob", body: `m${i}` });
    const p1 = await h.json("GET", "/v1/post/inbox?limit=2", bob.auth);
    const late = await send(h, alice, { to: "bob", body: "late" });
    const p2 = await h.json("GET", `/v1/post/inbox?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`, bob.auth);
    expect(p2.body.messages.map((m: any) => m.body)).toEqual(["m1", "m0"]);
    expect(p2.body.next_cursor).toBeNull();
    expect((await h.json("GET", "/v1/post/inbox?limit=1", bob.auth)).body.messages[0].id).toBe(late.body.id);
  });

  test.each([
    ["limit 0", "?limit=0", "limit"],
    ["a non-numeric limit", "?limit=ten", "limit"],
    ["a tampered cursor", "?cursor=WzFd.AAAAAAAAAAAAAAAA", "cursor"],
    ["garbage for a cursor", "?cursor=nope", "cursor"],
  ])("400 for %s", async (_, query, param) => {
    h = postHarness();
    const bob = await party(h, "bob");
    const r = await h.json("GET", `/v1/post/inbox${query}`, bob.auth);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe(param);
  });

  test("a limit above 200 is clamped; a cursor of the other box or of another account is 400", async () => {
    h = postHarness();
    const alice = await party(h, "alice", USD);
    const bob = await party(h, "bob", USD);
    for (let i = 0; i < 3; i++) await send(h, alice, { to: "bob", body: `m${i}` });
    expect((await h.json("GET", "/v1/post/inbox?limit=5000", bob.auth)).status).toBe(200);
    const page = await h.json("GET", "/v1/post/inbox?limit=1", bob.auth);
    const cursor = encodeURIComponent(page.body.next_cursor);
    expect((await h.json("GET", `/v1/post/outbox?cursor=${cursor}`, bob.auth)).status).toBe(400);
    expect((await h.json("GET", `/v1/post/inbox?cursor=${cursor}`, alice.auth)).status).toBe(400);
    expect((await h.json("GET", `/v1/post/inbox?cursor=${cursor}`, bob.auth)).body.messages).toHaveLength(2);
  });
});

describe("one message", () => {
  async function delivered() {
    h = postHarness();
    const alice = await party(h, "alice", USD);
    const bob = await party(h, "bob");
    const carol = await party(h, "carol", USD);
    const r = await send(h, alice, { to: "bob", subject: "hello", body: "the body" });
    expect(r.status).toBe(201);
    return { alice, bob, carol, id: r.body.id as string, thread: r.body.thread_id as string };
  }

  test("its sender and its recipient can read it, each from their side", async () => {
    const { alice, bob, id } = await delivered();
    const asSender = await h.json("GET", `/v1/post/messages/${id}`, alice.auth);
    expect(asSender.status).toBe(200);
    expect(asSender.body).toMatchObject({ id, direction: "out", subject: "hello", body: "the body", read_at: null });
    expect(asSender.body.receipt_id).toMatch(/^rcpt_/);
    const asRecipient = await h.json("GET", `/v1/post/messages/${id}`, bob.auth);
    expect(asRecipient.body).toMatchObject({ id, direction: "in", receipt_id: null, read_at: null });
  });

  test("another tenant's ids answer exactly like unknown ones, on every route", async () => {
    const { carol, id, thread } = await delivered();
    for (const [method, path] of [
      ["GET", `/v1/post/messages/${id}`],
      ["POST", `/v1/post/messages/${id}/read`],
      ["DELETE", `/v1/post/messages/${id}`],
      ["GET", `/v1/post/threads/${thread}`],
    ] as const) {
      const theirs = await h.json(method, path, carol.auth);
      const unknown = await h.json(method, path.replace(id, "pm_unknown").replace(thread, "thr_unknown"), carol.auth);
      expect(theirs.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(theirs.body.error.type).toBe("not_found");
      expect(theirs.body).toEqual(unknown.body);
    }
    const reply = await send(h, carol, { to: "alice", body: "butting in", in_reply_to: id });
    expect(reply.status).toBe(404);
    expect(reply.body.error.param).toBe("in_reply_to");
    expect((await h.json("GET", `/v1/post/messages/${id}`, { headers: { authorization: `Bearer ${carol.token}` } })).status).toBe(404);
  });

  test("read: the recipient marks it read once (the first time stands); the unread count follows; the sender never sees it", async () => {
    const { alice, bob, id } = await delivered();
    expect((await h.json("GET", "/v1/post/inbox", bob.auth)).body.unread).toBe(1);
    const at = new Date(h.clock.now()).toISOString();
    const r = await h.json("POST", `/v1/post/messages/${id}/read`, bob.auth);
    expect(r.status).toBe(200);
    expect(r.body.read_at).toBe(at);
    h.clock.advance(60_000);
    expect((await h.json("POST", `/v1/post/messages/${id}/read`, bob.auth)).body.read_at).toBe(at);
    expect((await h.json("GET", "/v1/post/inbox", bob.auth)).body.unread).toBe(0);
    expect((await h.json("GET", `/v1/post/messages/${id}`, alice.auth)).body.read_at).toBeNull();
    // For its sender it is not in an inbox.
    expect((await h.json("POST", `/v1/post/messages/${id}/read`, alice.auth)).status).toBe(404);
  });

  test("delete is per side: the recipient's delete leaves the sender's outbox copy; both deletes remove the row", async () => {
    const { alice, bob, id } = await delivered();
    const del = await h.json("DELETE", `/v1/post/messages/${id}`, bob.auth);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id, deleted: true });
    expect((await h.json("GET", `/v1/post/messages/${id}`, bob.auth)).status).toBe(404);
    expect((await h.json("GET", "/v1/post/inbox", bob.auth)).body).toEqual({ messages: [], next_cursor: null, unread: 0 });
    expect((await h.json("DELETE", `/v1/post/messages/${id}`, bob.auth)).status).toBe(404);

    expect((await h.json("GET", `/v1/post/messages/${id}`, alice.auth)).body.body).toBe("the body");
    expect((await h.json("GET", "/v1/post/outbox", alice.auth)).body.messages.map((m: any) => m.id)).toEqual([id]);
    expect((await h.json("DELETE", `/v1/post/messages/${id}`, alice.auth)).status).toBe(200);
    expect(h.ctx.db.query("SELECT 1 FROM post_messages WHERE id = ?").all(id)).toEqual([]);
  });
});

describe("threads", () => {
  test("replies join the thread; each party sees the messages it sent or received and kept, oldest first", async () => {
    h = postHarness();
    const alice = await party(h, "alice", USD);
    const bob = await party(h, "bob", USD);
    const carol = await party(h, "carol", USD);
    const m1 = await send(h, alice, { to: "bob", body: "one" });
    const m2 = await send(h, bob, { to: "alice", body: "two", in_reply_to: m1.body.id });
    expect(m2.body).toMatchObject({ thread_id: m1.body.thread_id, in_reply_to: m1.body.id });
    // Bob brings carol into the thread: she sees only what she is a party to.
    const m3 = await send(h, bob, { to: "carol", body: "three", in_reply_to: m2.body.id });
    const other = await send(h, alice, { to: "bob", body: "another thread" });
    expect(other.body.thread_id).not.toBe(m1.body.thread_id);

    const thread = m1.body.thread_id;
    const asBob = await h.json("GET", `/v1/post/threads/${thread}`, bob.auth);
    expect(asBob.status).toBe(200);
    expect(asBob.body.thread_id).toBe(thread);
    expect(asBob.body.messages.map((m: any) => [m.body, m.direction])).toEqual([
      ["one", "in"],
      ["two", "out"],
      ["three", "out"],
    ]);
    expect((await h.json("GET", `/v1/post/threads/${thread}`, alice.auth)).body.messages.map((m: any) => m.body)).toEqual(["one", "two"]);
    expect((await h.json("GET", `/v1/post/threads/${thread}`, carol.auth)).body.messages.map((m: any) => m.id)).toEqual([m3.body.id]);

    await h.json("DELETE", `/v1/post/messages/${m3.body.id}`, carol.auth);
    expect((await h.json("GET", `/v1/post/threads/${thread}`, carol.auth)).status).toBe(404);
  });

  test("a thread answers at most 500 messages, the oldest", async () => {
    h = postHarness({ config: (c) => (c.post.default_postage_micro_usd = 0) });
    const alice = await party(h, "alice");
    const bob = await party(h, "bob");
    const first = await send(h, alice, { to: "bob", body: "m0" });
    let last = first.body.id;
    for (let i = 1; i < 502; i++) last = (await send(h, alice, { to: "bob", body: `m${i}`, in_reply_to: last })).body.id;
    const r = await h.json("GET", `/v1/post/threads/${first.body.thread_id}`, bob.auth);
    expect(r.body.messages).toHaveLength(500);
    expect(r.body.messages[0].body).toBe("m0");
    expect(r.body.messages[499].body).toBe("m499");
  });
});
