/** /v1/calls through HTTP: commit, reveal, lists, the public page, anchoring, bad input, tenancy, billing and the 500-call cap. */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, test } from "bun:test";
import { registerJobs } from "../../../src/jobs.ts";
import { apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness } from "../../support/harness.ts";
import { callsHarness, COMMIT_PRICE, commit, funded, recompute, reveal, rootFromProof, USD, verifiedPayload } from "./calls-support.ts";

let h: Harness;
afterEach(() => h?.close());

const balanceOf = (accountId: string) => h.ctx.ledger.balance(accountId);
const TEXT = "Résumé: BTC closes above 100k on 2027-01-01 🚀\nsecond line";

describe("commit with text, then reveal", () => {
  test("svc makes the salt; the receipt states the commitment; reveal returns text and salt_hex that recompute it", async () => {
    h = callsHarness();
    const a = funded(h);
    const before = balanceOf(a.accountId);
    const made = await commit(h, a.key.token, { text: TEXT });
    expect(made.status).toBe(201);
    const c = made.body;
    expect(c).toMatchObject({ mode: "text", state: "committed", text: null, salt_hex: null, revealed_at: null });
    expect(c.id).toMatch(/^call_/);
    expect(c.commitment).toMatch(/^[0-9a-f]{64}$/);
    expect(c.anchor).toMatchObject({ state: "pending", root: null, proof: [], block: null });
    expect(JSON.stringify(c)).not.toContain("100k");

    const payload = await verifiedPayload(h, c.receipt);
    expect(payload).toMatchObject({ kind: "sealed_call", status: "committed", account: a.accountId, key_id: a.key.id, resource: c.id, cost_micro_usd: COMMIT_PRICE });
    expect(payload.attestations.commitment).toEqual({ commitment: c.commitment, alg: "sha256(salt||text)", salt_bytes: 32, mode: "text" });
    expect(c.receipt.receipt).not.toContain(Buffer.from("100k").toString("base64url"));
    expect(JSON.stringify(payload)).not.toContain("100k");
    expect(balanceOf(a.accountId).balance_micro_usd).toBe(before.balance_micro_usd - COMMIT_PRICE);

    const open = await h.json("GET", `/v1/calls/public/${c.id}`);
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ id: c.id, state: "committed", commitment: c.commitment, text: null, salt_hex: null });
    expect(open.body.receipt).toEqual(c.receipt);

    const shown = await reveal(h, a.key.token, c.id);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: c.id, state: "revealed", text: TEXT, commitment: c.commitment });
    expect(shown.body.salt_hex).toMatch(/^[0-9a-f]{64}$/);
    expect(shown.body.revealed_at).not.toBeNull();
    // Recomputed here from the documented byte layout, not by svc.
    expect(recompute(shown.body.salt_hex, shown.body.text)).toBe(c.commitment);

    const after = await h.json("GET", `/v1/calls/public/${c.id}`);
    expect(after.body).toMatchObject({ state: "revealed", text: TEXT, salt_hex: shown.body.salt_hex, revealed_at: shown.body.revealed_at });
    // Revealing again answers the revealed call; nothing is billed for reveals.
    const again = await reveal(h, a.key.token, c.id, {});
    expect(again.status).toBe(200);
    expect(again.body.revealed_at).toBe(shown.body.revealed_at);
    expect(balanceOf(a.accountId).balance_micro_usd).toBe(before.balance_micro_usd - COMMIT_PRICE);
  });

  test("text and salt are sealed at rest", async () => {
    h = callsHarness();
    const a = funded(h);
    const c = (await commit(h, a.key.token, { text: "a plaintext marker 7f3a" })).body;
    const row = h.ctx.db.query<Record<string, unknown>, [string]>("SELECT * FROM sealed_calls WHERE id = ?").get(c.id)!;
    expect(JSON.stringify(row)).not.toContain("marker 7f3a");
    expect(String(row.text_sealed)).toMatch(/^v1\./);
  });
});

describe("commit with a bare commitment, then reveal", () => {
  test("the caller keeps text and salt; reveal checks them against the commitment", async () => {
    h = callsHarness();
    const a = funded(h);
    const salt = randomBytes(32).toString("hex");
    const commitment = recompute(salt, TEXT);
    const made = await commit(h, a.key.token, { commitment: commitment.toUpperCase() });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ mode: "commitment", state: "committed", commitment });
    expect((await verifiedPayload(h, made.body.receipt)).attestations.commitment).toMatchObject({ commitment, mode: "commitment" });

    const wrongText = await reveal(h, a.key.token, made.body.id, { text: `${TEXT}.`, salt_hex: salt });
    expect(wrongText.status).toBe(422);
    expect(wrongText.body.error.type).toBe("commitment_mismatch");
    const wrongSalt = await reveal(h, a.key.token, made.body.id, { text: TEXT, salt_hex: randomBytes(32).toString("hex") });
    expect(wrongSalt.status).toBe(422);
    expect((await h.json("GET", `/v1/calls/public/${made.body.id}`)).body).toMatchObject({ state: "committed", text: null });

    const shown = await reveal(h, a.key.token, made.body.id, { text: TEXT, salt_hex: salt });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ state: "revealed", text: TEXT, salt_hex: salt });
    expect(recompute(shown.body.salt_hex, shown.body.text)).toBe(commitment);
    expect((await h.json("GET", `/v1/calls/public/${made.body.id}`)).body).toMatchObject({ state: "revealed", text: TEXT, salt_hex: salt });
  });
});

describe("anchoring", () => {
  test("the recurring pass puts pending commits under one anchored root; each proof folds to it", async () => {
    h = callsHarness();
    const a = funded(h);
    const made = [];
    for (const text of ["one", "two", "three"]) made.push((await commit(h, a.key.token, { text })).body);
    registerJobs(h.ctx);
    h.clock.advance(h.ctx.config.calls.anchor_interval_secs * 1000);
    await h.ctx.scheduler.runDue();

    const views = await Promise.all(made.map((c) => h.json("GET", `/v1/calls/public/${c.id}`)));
    const roots = new Set(views.map((v) => v.body.anchor.root));
    expect(roots.size).toBe(1);
    const root = [...roots][0] as string;
    views.forEach((v, i) => {
      const anchor = v.body.anchor;
      expect(anchor).toMatchObject({ state: "anchored", leaf_index: i, tree_size: 3 });
      expect(anchor.block.root).toBe(root);
      expect(anchor.block.anchors.some((x: { backend: string; status: string }) => x.backend === "log" && x.status === "anchored")).toBe(true);
      expect(rootFromProof(v.body.receipt.receipt, anchor.leaf_index, anchor.tree_size, anchor.proof)).toBe(root);
    });
    const doc = await h.json("GET", `/v1/anchors/${root}`);
    expect(doc.status).toBe(200);
    expect(doc.body.leaves.map((l: { leaf_hash: string }) => l.leaf_hash)).toEqual(views.map((v) => v.body.anchor.leaf_hash));

    const list = await h.json("GET", "/v1/calls", a.auth);
    expect(list.body.calls.every((c: { anchor_state: string; anchor_root: string }) => c.anchor_state === "anchored" && c.anchor_root === root)).toBe(true);

    // A commit after the pass waits for the next one.
    const late = (await commit(h, a.key.token, { text: "four" })).body;
    expect(late.anchor.state).toBe("pending");
    h.clock.advance(h.ctx.config.calls.anchor_interval_secs * 1000);
    await h.ctx.scheduler.runDue();
    const lateView = (await h.json("GET", `/v1/calls/public/${late.id}`)).body;
    expect(lateView.anchor).toMatchObject({ state: "anchored", leaf_index: 0, tree_size: 1 });
    expect(lateView.anchor.root).not.toBe(root);
  });
});

describe("GET /v1/calls and /v1/calls/mine", () => {
  test("/v1/calls lists every call of the account; /mine only the calling key's; both {calls, count, cap, trust_model}", async () => {
    h = callsHarness();
    const a = funded(h);
    const other = apiKeyFor(h.ctx, a.accountId);
    const first = (await commit(h, a.key.token, { text: "first" })).body;
    const second = (await commit(h, other.token, { text: "second" })).body;
    const third = (await commit(h, a.key.token, { text: "third" })).body;

    const all = await h.json("GET", "/v1/calls", a.auth);
    expect(all.status).toBe(200);
    expect(all.body.calls.map((c: { id: string }) => c.id)).toEqual([third.id, second.id, first.id]);
    expect(all.body).toMatchObject({ count: 3, cap: 500 });
    expect(Object.keys(all.body.trust_model).sort()).toEqual(["anchor", "commitment", "custody", "receipt"]);
    expect(all.body.calls[0]).toMatchObject({ key_id: a.key.id, mode: "text", state: "committed", anchor_state: "pending", revealed_at: null });
    expect(JSON.stringify(all.body)).not.toContain("third\"");

    const mine = await h.json("GET", "/v1/calls/mine", a.auth);
    expect(mine.status).toBe(200);
    expect(mine.body.calls.map((c: { id: string }) => c.id)).toEqual([third.id, first.id]);
    expect(mine.body).toMatchObject({ count: 2, cap: 500 });
    const theirs = await h.json("GET", "/v1/calls/mine", { headers: bearer(other.token) });
    expect(theirs.body.calls.map((c: { id: string }) => c.id)).toEqual([second.id]);

    // Any key of the account may reveal.
    expect((await reveal(h, other.token, first.id)).status).toBe(200);
  });
});

describe("tenancy", () => {
  test("another account's call answers reveal 404 exactly like an unknown id, and is in none of its lists", async () => {
    h = callsHarness();
    const a = funded(h);
    const b = funded(h);
    const c = (await commit(h, a.key.token, { text: "mine" })).body;
    const foreign = await reveal(h, b.key.token, c.id);
    const unknown = await reveal(h, b.key.token, "call_doesnotexist000000000000");
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect((await h.json("GET", "/v1/calls", b.auth)).body).toMatchObject({ calls: [], count: 0 });
    expect((await h.json("GET", "/v1/calls/mine", b.auth)).body.calls).toEqual([]);
    expect((await h.json("GET", `/v1/calls/public/${c.id}`)).body.state).toBe("committed");
    expect((await h.json("GET", "/v1/calls/public/call_doesnotexist000000000000")).status).toBe(404);
  });

  test("a key without the records scope is refused", async () => {
    h = callsHarness();
    const a = funded(h);
    const narrow = apiKeyFor(h.ctx, a.accountId, { scopes: ["inference"] });
    const r = await commit(h, narrow.token, { text: "x" });
    expect(r.status).toBe(403);
    expect(r.body.error.type).toBe("missing_scope");
  });
});

describe("bad input", () => {
  test("commit: each refusal names the field and stores and bills nothing", async () => {
    h = callsHarness();
    const a = funded(h);
    const before = balanceOf(a.accountId);
    const hex = "ab".repeat(32);
    const cases: [unknown, string][] = [
      [{}, "text"],
      [{ text: "" }, "text"],
      [{ text: 5 }, "text"],
      [{ text: "x".repeat(32_769) }, "text"],
      [{ text: "x", commitment: hex }, "commitment"],
      [{ commitment: "zz".repeat(32) }, "commitment"],
      [{ commitment: hex.slice(2) }, "commitment"],
      [{ commitment: `${hex}00` }, "commitment"],
      [{ text: "x", colour: "red" }, "colour"],
    ];
    for (const [body, param] of cases) {
      const r = await commit(h, a.key.token, body);
      expect([r.status, r.body.error?.param]).toEqual([400, param]);
    }
    expect((await h.json("GET", "/v1/calls", a.auth)).body.count).toBe(0);
    expect(balanceOf(a.accountId)).toEqual(before);
  });

  test("reveal: text mode takes no text or salt; commitment mode needs both, well formed", async () => {
    h = callsHarness();
    const a = funded(h);
    const byText = (await commit(h, a.key.token, { text: "held by svc" })).body;
    const salt = randomBytes(32).toString("hex");
    const bare = (await commit(h, a.key.token, { commitment: recompute(salt, "kept") })).body;
    const cases: [string, unknown, string][] = [
      [byText.id, { text: "held by svc" }, "text"],
      [byText.id, { salt_hex: salt }, "salt_hex"],
      [bare.id, {}, "text"],
      [bare.id, { text: "kept" }, "salt_hex"],
      [bare.id, { salt_hex: salt }, "text"],
      [bare.id, { text: "kept", salt_hex: salt.slice(2) }, "salt_hex"],
      [bare.id, { text: "kept", salt_hex: `${salt}00` }, "salt_hex"],
      [bare.id, { text: "kept", salt_hex: "zz".repeat(32) }, "salt_hex"],
      [bare.id, { text: "", salt_hex: salt }, "text"],
      [bare.id, { text: "kept", salt_hex: salt, pin: 1 }, "pin"],
    ];
    for (const [id, body, param] of cases) {
      const r = await reveal(h, a.key.token, id, body);
      expect([r.status, r.body.error?.param]).toEqual([400, param]);
    }
    expect((await h.json("GET", `/v1/calls/public/${bare.id}`)).body.state).toBe("committed");
    expect((await h.json("GET", `/v1/calls/public/${byText.id}`)).body.state).toBe("committed");
  });
});

describe("billing", () => {
  test("an account that cannot pay the commit price gets 402 and no call", async () => {
    h = callsHarness();
    const poor = funded(h, 0);
    const r = await commit(h, poor.key.token, { text: "x" });
    expect(r.status).toBe(402);
    expect(r.body.error.type).toBe("insufficient_credit");
    expect((await h.json("GET", "/v1/calls", poor.auth)).body.count).toBe(0);
  });

  test("at price 0 a commit is still receipted", async () => {
    h = callsHarness(0);
    const a = funded(h, 0);
    const r = await commit(h, a.key.token, { text: "free" });
    expect(r.status).toBe(201);
    expect(await verifiedPayload(h, r.body.receipt)).toMatchObject({ kind: "sealed_call", cost_micro_usd: 0 });
  });
});

describe("the cap: 500 calls per account", () => {
  test("the 501st commit answers 409 call_limit_reached, also when the last ones race", async () => {
    h = callsHarness(1);
    const a = funded(h, 1 * USD);
    for (let i = 0; i < 497; i++) {
      const r = await commit(h, a.key.token, { text: `call ${i}` });
      if (r.status !== 201) throw new Error(`commit ${i}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    // Five at once for the last three places: exactly three get in.
    const raced = await Promise.all(Array.from({ length: 5 }, (_, i) => commit(h, a.key.token, { text: `race ${i}` })));
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409]);
    const refused = await commit(h, a.key.token, { commitment: "cd".repeat(32) });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: "call_limit_reached", limit: 500 });

    const list = await h.json("GET", "/v1/calls", a.auth);
    expect(list.body).toMatchObject({ count: 500, cap: 500 });
    expect(list.body.calls.length).toBe(500);
    // Refused commits billed nothing: 500 commits at 1 micro-USD each.
    expect(h.ctx.ledger.balance(a.accountId).balance_micro_usd).toBe(1 * USD - 500);
    // Another account is not affected.
    const b = funded(h);
    expect((await commit(h, b.key.token, { text: "x" })).status).toBe(201);
  }, 60_000);
});
