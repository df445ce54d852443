/**
 * Post settings and handles: defaults, any-subset PUT, claiming a handle once, the public handle
 * page, bad input named by field, and who may call (API key with the post scope).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness } from "../../support/harness.ts";
import { party, POSTAGE, postHarness } from "./post-support.ts";

let h: Harness;
afterEach(() => h?.close());

const put = (auth: { headers: Record<string, string> }, body: unknown) => h.json("PUT", "/v1/post/settings", { ...auth, body });

describe("settings", () => {
  test("an account starts on the deployment's defaults, with no handle", async () => {
    h = postHarness();
    const a = await party(h, null);
    const r = await h.json("GET", "/v1/post/settings", a.auth);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ handle: null, postage_micro_usd: POSTAGE, accept: "anyone", allow: [], block: [], updated_at: null });
  });

  test("PUT sets any subset and keeps the rest; lists are sorted and de-duplicated", async () => {
    h = postHarness();
    const a = await party(h, null);
    const first = await put(a.auth, { handle: "alice", postage_micro_usd: 250_000 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ handle: "alice", postage_micro_usd: 250_000, accept: "anyone", allow: [], block: [] });
    expect(first.body.updated_at).toBe(new Date(h.clock.now()).toISOString());

    const second = await put(a.auth, { accept: "allow_list", allow: ["zed", "bob", "bob"] });
    expect(second.body).toMatchObject({ handle: "alice", postage_micro_usd: 250_000, accept: "allow_list", allow: ["bob", "zed"], block: [] });
    const third = await put(a.auth, { block: ["mallory"], postage_micro_usd: 1_000_000 });
    expect(third.body).toMatchObject({ accept: "allow_list", allow: ["bob", "zed"], block: ["mallory"], postage_micro_usd: 1_000_000 });
    const empty = await put(a.auth, {});
    expect(empty.status).toBe(200);
    expect((await h.json("GET", "/v1/post/settings", a.auth)).body).toMatchObject({ handle: "alice", allow: ["bob", "zed"], block: ["mallory"], postage_micro_usd: 1_000_000 });
    // A list is replaced whole; an empty one clears it.
    expect((await put(a.auth, { allow: [] })).body.allow).toEqual([]);
  });

  test("a handle is claimed once: another account's is 409 handle_taken, changing one's own is 409 handle_already_claimed", async () => {
    h = postHarness();
    const a = await party(h, "alice");
    const b = await party(h, null);
    const taken = await put(b.auth, { handle: "alice" });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ type: "handle_taken", param: "handle" });
    expect((await h.json("GET", "/v1/post/settings", b.auth)).body.handle).toBeNull();

    const change = await put(a.auth, { handle: "alice2" });
    expect(change.status).toBe(409);
    expect(change.body.error).toMatchObject({ type: "handle_already_claimed", param: "handle" });
    // Re-stating the same handle is not a change.
    expect((await put(a.auth, { handle: "alice", postage_micro_usd: 5 })).status).toBe(200);
  });

  test("concurrent claims of one handle: exactly one account gets it", async () => {
    h = postHarness();
    const parties = await Promise.all(Array.from({ length: 6 }, () => party(h, null)));
    const results = await Promise.all(parties.map((p) => put(p.auth, { handle: "popular" })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error.type === "handle_taken")).toBe(true);
  });

  test.each([
    ["postage above 1.00 USD", { postage_micro_usd: 1_000_001 }, "postage_micro_usd"],
    ["negative postage", { postage_micro_usd: -1 }, "postage_micro_usd"],
    ["fractional postage", { postage_micro_usd: 1.5 }, "postage_micro_usd"],
    ["postage as a string", { postage_micro_usd: "100" }, "postage_micro_usd"],
    ["a handle with capitals", { handle: "Alice" }, "handle"],
    ["a handle too short", { handle: "ab" }, "handle"],
    ["a handle too long", { handle: "a".repeat(33) }, "handle"],
    ["a handle with a space", { handle: "al ice" }, "handle"],
    ["an unknown accept policy", { accept: "friends" }, "accept"],
    ["a malformed handle on a list", { allow: ["ok-handle", "NOT OK"] }, "allow"],
    ["a list too long", { block: Array.from({ length: 1001 }, (_, i) => `h${String(i).padStart(4, "0")}`) }, "block"],
    ["an unknown field", { postage: 5 }, "postage"],
    ["a handle on both lists", { allow: ["bob"], block: ["bob"] }, "block"],
    ["one's own handle on a list", { handle: "alice", block: ["alice"] }, "block"],
  ])("%s is refused with 400 naming the field", async (_, body, field) => {
    h = postHarness();
    const a = await party(h, null);
    const r = await put(a.auth, body);
    expect(r.status).toBe(400);
    expect(String(r.body.error.param)).toContain(field);
    // Nothing was written.
    expect((await h.json("GET", "/v1/post/settings", a.auth)).body.updated_at).toBeNull();
  });

  test("a list that would clash with the other list already set is refused", async () => {
    h = postHarness();
    const a = await party(h, "alice", 0, { allow: ["bob"] });
    const r = await put(a.auth, { block: ["bob"] });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("block");
  });
});

describe("the public handle page", () => {
  test("answers accepts and postage without a credential; 404 for an unknown handle", async () => {
    h = postHarness();
    await party(h, "alice", 0, { postage_micro_usd: 42_000 });
    const r = await h.json("GET", "/v1/post/handles/alice");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ handle: "alice", accepts: true, postage: { amount_micro_usd: 42_000, currency: "USD" }, postage_micro_usd: 42_000 });
    const unknown = await h.json("GET", "/v1/post/handles/nobody-here");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.type).toBe("not_found");
  });

  test("accepts is false only for accept: nobody (an allow list may still refuse a given sender)", async () => {
    h = postHarness();
    const a = await party(h, "alice", 0, { accept: "allow_list" });
    expect((await h.json("GET", "/v1/post/handles/alice")).body.accepts).toBe(true);
    await put(a.auth, { accept: "nobody" });
    expect((await h.json("GET", "/v1/post/handles/alice")).body.accepts).toBe(false);
  });
});

describe("who may call", () => {
  test("a session token is 401, a key without the post scope is 403 missing_scope", async () => {
    h = postHarness();
    const { account, session } = accountWithSession(h.ctx);
    const viaSession = await h.json("GET", "/v1/post/settings", { headers: bearer(session.token) });
    expect(viaSession.status).toBe(401);
    const narrow = apiKeyFor(h.ctx, account.id, { scopes: ["inference"] });
    const r = await h.json("PUT", "/v1/post/settings", { headers: bearer(narrow.token), body: { handle: "alice" } });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: "missing_scope", scope: "post" });
    const scoped = apiKeyFor(h.ctx, account.id, { scopes: ["post"] });
    expect((await h.json("PUT", "/v1/post/settings", { headers: bearer(scoped.token), body: { handle: "alice" } })).status).toBe(200);
  });
});
