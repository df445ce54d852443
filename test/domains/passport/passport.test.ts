/** /v1/passport and /v1/registry/identity through HTTP: minting from real history, the credential checked without svc, anchoring, the directory, refresh and handles, bad input. */
import { afterEach, describe, expect, test } from "bun:test";
import { registerJobs } from "../../../src/jobs.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { canonical, decode, foldToRoot, linkWallet, mint, recoveredSigner, sha256Hex, type Tenant, tenant, USD, work } from "./passport-support.ts";

let h: Harness;
afterEach(() => h?.close());

const count = (sql: string, ...args: string[]) => h.ctx.db.query<{ n: number }, string[]>(sql).get(...args)!.n;

/** Runs every recurring job that is due after `secs` (receipt batches, passport anchoring). */
async function passTime(secs: number) {
  h.clock.advance(secs * 1000);
  await h.ctx.scheduler.runDue();
}

async function history(t: Tenant, runs: Record<string, number>, loose = 0) {
  for (const [run, n] of Object.entries(runs)) for (let i = 0; i < n; i++) await work(h, t, run);
  for (let i = 0; i < loose; i++) await work(h, t, null);
}

describe("minting from the account's own history", () => {
  test("every figure matches the account's records; the credential decodes, verifies with viem and recomputes the commitment", async () => {
    h = makeHarness();
    const a = tenant(h);
    const wallet = linkWallet(h, a);
    await history(a, { "run-1": 3, "run-2": 2 }, 2);
    const granted = await h.json("POST", "/v1/mandates", { headers: a.auth.headers, body: { purpose: "research", budget_micro_usd: 5 * USD, valid_until: new Date(h.clock.now() + 86_400_000).toISOString() } });
    expect(granted.status).toBe(201);
    // Someone else's history is not this passport's.
    const other = tenant(h);
    await history(other, { "run-1": 4 });

    const made = await mint(h, a, { handle: "atlas-7", agent_name: "  Atlas  ", wallet: wallet.toUpperCase().replace("0X", "0x") });
    expect(made.status).toBe(201);
    const p = made.body;
    expect(p).toMatchObject({ handle: "atlas-7", agent_name: "Atlas" });
    expect(p.wallet.toLowerCase()).toBe(wallet);

    const receipts = count("SELECT count(*) AS n FROM receipts WHERE account_id = ?", a.accountId);
    expect(receipts).toBe(7);
    const usage = h.ctx.db.query<{ n: number; cost: number }, [string]>("SELECT count(*) AS n, sum(cost_micro_usd) AS cost FROM usage_events WHERE account_id = ?").get(a.accountId)!;
    const created = h.ctx.db.query<{ created_at: number }, [string]>("SELECT created_at FROM accounts WHERE id = ?").get(a.accountId)!.created_at;
    expect(p.stats).toEqual({
      verified_runs: 2,
      anchored_runs: 0,
      receipts,
      metered_events: usage.n,
      metered_spend_micro_usd: usage.cost,
      active_mandates: 1,
      operates_under_budget_caps: true,
      first_seen: new Date(created).toISOString(),
    });
    expect(usage.cost).toBe(7 * 1_500);

    // The credential, checked without svc's code: viem recovers the signer, our own canonical JSON recomputes the commitment.
    expect(await recoveredSigner(h, p.credential, p.signature)).toBe(p.signer);
    const payload = decode(p.credential);
    expect(payload).toEqual({ v: 1, type: "agent-passport", handle: "atlas-7", agent_name: "Atlas", wallet: p.wallet, stats: p.stats, trust_model: p.trust_model, issued_at: p.updated_at });
    expect(Buffer.from(canonical(payload), "utf8").toString("base64url")).toBe(p.credential);
    expect(sha256Hex(canonical(payload))).toBe(p.commitment);
    expect(p.commitment_alg).toContain("sorted ascending by Unicode code point");
    expect(p.trust_model).toContain("never a trust score");
    expect(p.anchor).toEqual({ state: "pending", root: null, memo: null, anchors: [] });
    expect(p.proof_url).toEndWith("/v1/passport/atlas-7/proof");
    expect(p.identity_url).toEndWith("/v1/registry/identity/atlas-7");

    // svc's own verifier accepts it as any statement it signs.
    const checked = await h.json("POST", "/v1/receipts/verify", { body: { receipt: p.credential, signature: p.signature } });
    expect(checked.body).toMatchObject({ valid: true, payload: { type: "agent-passport", handle: "atlas-7" } });

    const shown = await h.json("GET", "/v1/passport/atlas-7");
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(p);
    expect((await h.json("GET", "/v1/passport/ATLAS-7")).body.handle).toBe("atlas-7");
  });

  test("a run with a receipt whose signature does not check out is not counted as verified", async () => {
    h = makeHarness();
    const a = tenant(h);
    await history(a, { good: 2, forged: 2 });
    // Swap two of the run's signatures: each is a real svc signature, but over another receipt.
    const rows = h.ctx.db.query<{ seq: number; signature: string }, [string]>("SELECT seq, signature FROM receipts WHERE run_id = ? ORDER BY seq").all("forged");
    h.ctx.db.query("UPDATE receipts SET signature = ? WHERE seq = ?").run(rows[1]!.signature, rows[0]!.seq);
    const p = (await mint(h, a, { handle: "honest", agent_name: "Honest" })).body;
    expect(p.stats).toMatchObject({ verified_runs: 1, receipts: 4 });

    // Each receipt is checked once: a refresh keeps the verdict and checks only what is new.
    await history(a, { later: 1 });
    const again = await mint(h, a, { handle: "honest", agent_name: "Honest" });
    expect(again.status).toBe(200);
    expect(again.body.stats).toMatchObject({ verified_runs: 2, receipts: 5 });
  });

  test("anchored runs follow the receipt batches; a key without a cap means not operating under budget caps", async () => {
    h = makeHarness();
    registerJobs(h.ctx);
    const a = tenant(h, { monthlyCap: null });
    await history(a, { one: 2, two: 1 });
    expect((await mint(h, a, { handle: "uncapped", agent_name: "U" })).body.stats).toMatchObject({ anchored_runs: 0, operates_under_budget_caps: false });
    await passTime(h.ctx.config.anchors.batch_interval_secs);
    await history(a, { three: 1 });
    const p = (await mint(h, a, { handle: "uncapped", agent_name: "U" })).body;
    // run "three" came after the batch: not yet under an anchored root.
    expect(p.stats).toMatchObject({ verified_runs: 3, anchored_runs: 2, receipts: 4 });
  });
});

describe("anchoring and the proof", () => {
  test("the pass puts credentials under one anchored root; each proof's siblings fold to it; the root's document lists the leaves", async () => {
    h = makeHarness();
    registerJobs(h.ctx);
    const tenants = [tenant(h), tenant(h), tenant(h)];
    const handles = ["alpha", "bravo", "charlie"];
    for (const [i, t] of tenants.entries()) {
      await history(t, { r: i + 1 });
      expect((await mint(h, t, { handle: handles[i], agent_name: handles[i] })).status).toBe(201);
    }
    const pending = await h.json("GET", "/v1/passport/alpha/proof");
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ state: "pending", root: null, leaf_index: null, tree_size: null, siblings: [], anchor: null });

    await passTime(h.ctx.config.passport.anchor_interval_secs);
    const proofs = await Promise.all(handles.map((x) => h.json("GET", `/v1/passport/${x}/proof`)));
    const root = proofs[0]!.body.root as string;
    expect(root).toMatch(/^[0-9a-f]{64}$/);
    for (const [i, { body: proof }] of proofs.entries()) {
      expect(proof).toMatchObject({ handle: handles[i], state: "anchored", root, leaf_index: i, tree_size: 3 });
      // Recomputed here: the commitment from the decoded credential, then the fold to the root.
      expect(sha256Hex(canonical(decode(proof.credential)))).toBe(proof.commitment);
      expect(proof.payload).toEqual(decode(proof.credential));
      expect(sha256Hex(Buffer.concat([Buffer.from([0]), Buffer.from(proof.commitment, "ascii")]))).toBe(proof.leaf_hash);
      expect(foldToRoot(proof.commitment, proof.leaf_index, proof.tree_size, proof.siblings)).toBe(root);
      expect(proof.siblings.length).toBeGreaterThan(0);
      expect(await recoveredSigner(h, proof.credential, proof.signature)).toBe(proof.signer);
      expect(proof.anchor.root).toBe(root);
      expect(proof.anchor.memo).toBe(`${h.ctx.config.anchors.memo_prefix}:v1:${root}`);
      expect(proof.anchor.anchors.some((x: { backend: string; status: string }) => x.backend === "log" && x.status === "anchored")).toBe(true);
    }
    // A tampered sibling does not reach the root.
    const bad = proofs[1]!.body;
    expect(foldToRoot(bad.commitment, bad.leaf_index, bad.tree_size, [bad.siblings[0].replace(/^./, (c: string) => (c === "0" ? "1" : "0")), ...bad.siblings.slice(1)])).not.toBe(root);

    const passport = (await h.json("GET", "/v1/passport/bravo")).body;
    expect(passport.anchor).toMatchObject({ state: "anchored", root, memo: `${h.ctx.config.anchors.memo_prefix}:v1:${root}` });
    expect(passport.anchor.anchors[0]).toMatchObject({ backend: "log", status: "anchored" });
    const doc = await h.json("GET", `/v1/anchors/${root}`);
    expect(doc.status).toBe(200);
    expect(doc.body.leaves.map((l: { leaf_hash: string }) => l.leaf_hash)).toEqual(proofs.map((p) => p.body.leaf_hash));

    // A refresh issues a new credential: pending again until the next pass, under a new root.
    await history(tenants[0]!, { more: 1 });
    const refreshed = (await mint(h, tenants[0]!, { handle: "alpha", agent_name: "alpha" })).body;
    expect(refreshed.commitment).not.toBe(proofs[0]!.body.commitment);
    expect(refreshed.anchor.state).toBe("pending");
    await passTime(h.ctx.config.passport.anchor_interval_secs);
    const next = (await h.json("GET", "/v1/passport/alpha/proof")).body;
    expect(next).toMatchObject({ state: "anchored", leaf_index: 0, tree_size: 1, siblings: [] });
    expect(next.root).not.toBe(root);
    expect(foldToRoot(next.commitment, 0, 1, [])).toBe(next.root);
  });
});

describe("the directory", () => {
  test("ranked by verified runs, then receipts, then handle; {agents, count, ordered_by}", async () => {
    h = makeHarness();
    const plan: [string, Record<string, number>][] = [
      ["few-receipts", { a: 1 }],
      ["most-runs", { a: 1, b: 1, c: 1 }],
      ["no-history", {}],
      ["many-receipts", { a: 4 }],
      ["also-few", { a: 1 }],
    ];
    for (const [handle, runs] of plan) {
      const t = tenant(h);
      await history(t, runs);
      expect((await mint(h, t, { handle, agent_name: handle })).status).toBe(201);
    }
    const dir = await h.json("GET", "/v1/passport");
    expect(dir.status).toBe(200);
    expect(dir.body.agents.map((x: { handle: string }) => x.handle)).toEqual(["most-runs", "many-receipts", "also-few", "few-receipts", "no-history"]);
    expect(dir.body.count).toBe(5);
    expect(dir.body.ordered_by).toBe("stats.verified_runs desc, stats.receipts desc, handle asc");
    expect(dir.body.agents[0]).toMatchObject({ handle: "most-runs", stats: { verified_runs: 3, receipts: 3 } });
    expect(dir.body.agents[0].passport_url).toEndWith("/v1/passport/most-runs");
  });
});

describe("the ERC-8004 identity document", () => {
  test("an off-chain registration file naming the passport, with an erc8004 block saying no registry contract is deployed", async () => {
    h = makeHarness();
    const a = tenant(h);
    const wallet = linkWallet(h, a);
    const p = (await mint(h, a, { handle: "scout", agent_name: "Scout", wallet })).body;
    const doc = await h.json("GET", "/v1/registry/identity/scout");
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({
      type: "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
      name: "Scout",
      registrations: [],
      erc8004: { registry_deployed: false, identity_registry: null, agent_id: null },
      passport: { handle: "scout", commitment: p.commitment, signer: p.signer, proof_url: p.proof_url },
    });
    expect(doc.body.erc8004.note).toContain("no ERC-8004 identity registry contract");
    expect(doc.body.services).toContainEqual({ name: "agent-passport", endpoint: doc.body.passport.passport_url, version: "1" });
    expect(doc.body.services).toContainEqual({ name: "agentWallet", endpoint: p.wallet });
    expect((await h.json("GET", "/v1/registry/identity/nobody-here")).status).toBe(404);
  });
});

describe("handles", () => {
  test("a passport keeps its first handle; another account's handle (passport or KYA) is refused", async () => {
    h = makeHarness();
    const a = tenant(h);
    const b = tenant(h);
    expect((await mint(h, a, { handle: "first", agent_name: "A" })).status).toBe(201);
    const renamed = await mint(h, a, { handle: "second", agent_name: "A" });
    expect(renamed.status).toBe(409);
    expect(renamed.body.error).toMatchObject({ type: "handle_fixed", param: "handle", handle: "first" });
    const taken = await mint(h, b, { handle: "first", agent_name: "B" });
    expect(taken.status).toBe(409);
    expect(taken.body.error.type).toBe("handle_taken");

    const kya = await h.json("POST", "/v1/kya/credentials", { headers: a.auth.headers, body: { handle: "a-agent", key_id: a.keyId } });
    expect(kya.status).toBe(201);
    const clash = await mint(h, b, { handle: "a-agent", agent_name: "B" });
    expect(clash.status).toBe(409);
    expect(clash.body.error.type).toBe("handle_taken");
    // Nothing of b's was written.
    expect((await h.json("GET", "/v1/passport")).body.agents.map((x: { handle: string }) => x.handle)).toEqual(["first"]);
  });
});

describe("bad input and access", () => {
  test("each malformed field is refused with 400 naming it", async () => {
    h = makeHarness();
    const a = tenant(h);
    const someoneElses = linkWallet(h, tenant(h));
    const cases: [Record<string, unknown>, string][] = [
      [{ agent_name: "A" }, "handle"],
      [{ handle: "ab", agent_name: "A" }, "handle"],
      [{ handle: "Upper", agent_name: "A" }, "handle"],
      [{ handle: "-dash", agent_name: "A" }, "handle"],
      [{ handle: "x".repeat(33), agent_name: "A" }, "handle"],
      [{ handle: "fine" }, "agent_name"],
      [{ handle: "fine", agent_name: "   " }, "agent_name"],
      [{ handle: "fine", agent_name: "n".repeat(101) }, "agent_name"],
      [{ handle: "fine", agent_name: "A", wallet: "0x1234" }, "wallet"],
      [{ handle: "fine", agent_name: "A", wallet: someoneElses }, "wallet"],
      [{ handle: "fine", agent_name: "A", score: 99 }, "score"],
    ];
    for (const [body, param] of cases) {
      const r = await mint(h, a, body);
      expect({ body, status: r.status, param: r.body.error?.param }).toEqual({ body, status: 400, param });
    }
    expect((await h.json("GET", "/v1/passport")).body.count).toBe(0);
  });

  test("minting takes a session; unknown handles answer 404 on every public read", async () => {
    h = makeHarness();
    const a = tenant(h);
    expect((await h.json("POST", "/v1/passport", { body: { handle: "nokey", agent_name: "N" } })).status).toBe(401);
    expect((await h.json("POST", "/v1/passport", { headers: bearer(a.keyToken), body: { handle: "nokey", agent_name: "N" } })).status).toBe(401);
    for (const path of ["/v1/passport/ghost", "/v1/passport/ghost/proof", "/v1/registry/identity/ghost"]) {
      const r = await h.json("GET", path);
      expect({ path, status: r.status, type: r.body.error.type }).toEqual({ path, status: 404, type: "not_found" });
    }
    const empty = await h.json("GET", "/v1/passport");
    expect(empty.body).toEqual({ agents: [], count: 0, ordered_by: "stats.verified_runs desc, stats.receipts desc, handle asc" });
  });
});
