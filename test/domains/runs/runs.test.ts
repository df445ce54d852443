/**
 * Runs over HTTP: receipts chained by svc_run_id (the meter's runId), listed and read per
 * account; proofs whose every inclusion proof is checked by the tests' own RFC 9162 verifier
 * and every signature by viem; anchoring on demand; the evidence mapping for both frameworks
 * and its 400; another account's run answering 404.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { recoverMessageAddress } from "viem";
import { hashLeaf, verifyReceiptInclusion } from "../../support/inclusion-proof.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

type Hex = `0x${string}`;

function owner() {
  const { account, session } = accountWithSession(h.ctx);
  h.ctx.ledger.credit(account.id, 1_000_000_000, { type: "deposit" });
  return { accountId: account.id, auth: bearer(session.token) };
}

/** One billable action through the meter, as every billable route settles it. */
function settle(accountId: string, runId: string | null, opts: { cost?: number; kind?: string; keyId?: string | null } = {}) {
  const cost = opts.cost ?? 1_000;
  const r = h.ctx.meter.reserve({ accountId, keyId: opts.keyId ?? null, amount: cost, kind: opts.kind ?? "inference", resource: "gpt-test", resourceType: "model", runId });
  const s = h.ctx.meter.settle(r, cost, { units: { input_tokens: 10, output_tokens: 20 } });
  h.clock.advance(1_000);
  return s.receipt!;
}

const get = (path: string, auth: Record<string, string>) => h.json("GET", path, { headers: auth });
const post = (path: string, auth: Record<string, string>) => h.json("POST", path, { headers: auth });

describe("GET /v1/runs", () => {
  test("named-key envelope, newest activity first, totals per run; receipts without a run are not a run", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    settle(accountId, "alpha", { cost: 100, kind: "inference" });
    settle(accountId, "beta", { cost: 5, kind: "sandbox" });
    settle(accountId, null, { cost: 7 });
    settle(accountId, "alpha", { cost: 200, kind: "embedding" });
    const t0 = h.clock.now();

    const r = await get("/v1/runs", auth);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(["runs"]);
    expect(r.body.runs).toEqual([
      {
        run_id: "alpha",
        receipt_count: 2,
        cost_micro_usd: 300,
        first_receipt_at: new Date(t0 - 4_000).toISOString(),
        last_receipt_at: new Date(t0 - 1_000).toISOString(),
        kinds: ["embedding", "inference"],
        anchored: false,
      },
      { run_id: "beta", receipt_count: 1, cost_micro_usd: 5, first_receipt_at: new Date(t0 - 3_000).toISOString(), last_receipt_at: new Date(t0 - 3_000).toISOString(), kinds: ["sandbox"], anchored: false },
    ]);
  });

  test("anchored once a proof anchors a root over all its receipts; a new receipt makes it unanchored until the next proof", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    settle(accountId, "r1");
    settle(accountId, "r1");
    expect((await get("/v1/runs", auth)).body.runs[0].anchored).toBe(false);
    expect((await post("/v1/runs/r1/proof", auth)).status).toBe(200);
    expect((await get("/v1/runs", auth)).body.runs[0].anchored).toBe(true);
    settle(accountId, "r1");
    expect((await get("/v1/runs", auth)).body.runs[0].anchored).toBe(false);
    await post("/v1/runs/r1/proof", auth);
    expect((await get("/v1/runs", auth)).body.runs[0]).toMatchObject({ receipt_count: 3, anchored: true });
  });

  test("at most 200 runs, the newest", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    for (let i = 0; i < 201; i++) settle(accountId, `run-${i}`, { cost: 1 });
    const runs = (await get("/v1/runs", auth)).body.runs as { run_id: string }[];
    expect(runs.length).toBe(200);
    expect(runs[0]!.run_id).toBe("run-200");
    expect(runs.some((r) => r.run_id === "run-0")).toBe(false);
  });

  test("run ids are per account: the same id in two accounts is two runs that never mix", async () => {
    h = makeHarness();
    const a = owner();
    const b = owner();
    settle(a.accountId, "shared-name", { cost: 10 });
    settle(b.accountId, "shared-name", { cost: 99 });
    settle(b.accountId, "b-only", { cost: 1 });
    expect((await get("/v1/runs", a.auth)).body.runs.map((r: any) => [r.run_id, r.cost_micro_usd])).toEqual([["shared-name", 10]]);
    expect((await get("/v1/runs/shared-name", b.auth)).body).toMatchObject({ receipt_count: 1, cost_micro_usd: 99 });
  });

  test("needs a session", async () => {
    h = makeHarness();
    expect((await h.json("GET", "/v1/runs")).status).toBe(401);
    const { accountId } = owner();
    const key = apiKeyFor(h.ctx, accountId);
    expect((await get("/v1/runs", bearer(key.token))).status).toBe(401);
  });
});

describe("GET /v1/runs/:id", () => {
  test("the run with its receipts in minting order; unknown and another account's runs answer the same 404", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    const other = owner();
    const first = settle(accountId, "job-7", { cost: 3, kind: "inference" });
    const second = settle(accountId, "job-7", { cost: 4, kind: "sandbox" });
    settle(other.accountId, "theirs");

    const r = await get("/v1/runs/job-7", auth);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ run_id: "job-7", receipt_count: 2, cost_micro_usd: 7, kinds: ["inference", "sandbox"], anchored: false, root: null });
    expect(r.body.receipts).toEqual([
      { id: first.id, kind: "inference", status: "succeeded", cost_micro_usd: 3, created_at: expect.any(String) },
      { id: second.id, kind: "sandbox", status: "succeeded", cost_micro_usd: 4, created_at: expect.any(String) },
    ]);
    // Metadata only: no receipt strings or signatures in the listing.
    expect(JSON.stringify(r.body)).not.toContain(first.receipt);

    const missing = await get("/v1/runs/nope", auth);
    const foreign = await get("/v1/runs/theirs", auth);
    expect(missing.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
  });

  test("a run id longer than 200 characters is a 400 naming the field", async () => {
    h = makeHarness();
    const { auth } = owner();
    const r = await get(`/v1/runs/${"x".repeat(201)}`, auth);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("params.id");
  });

  test("run ids with reserved characters are taken literally", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    settle(accountId, "agent/42 step:1");
    const r = await get(`/v1/runs/${encodeURIComponent("agent/42 step:1")}`, auth);
    expect(r.status).toBe(200);
    expect(r.body.run_id).toBe("agent/42 step:1");
  });
});

describe("POST /v1/runs/:id/proof", () => {
  test("root over the receipts in order; every inclusion proof verifies independently; signatures recover to the signer; anchored in the log at once", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    const minted = Array.from({ length: 7 }, (_, i) => settle(accountId, "proof-run", { cost: 10 + i }));
    settle(accountId, "another-run");

    const r = await post("/v1/runs/proof-run/proof", auth);
    expect(r.status).toBe(200);
    const proof = r.body;
    expect(proof).toMatchObject({ run_id: "proof-run", tree_size: 7 });
    expect(proof.root).toMatch(/^[0-9a-f]{64}$/);
    expect(proof.commitment_alg).toContain("object keys sorted ascending by Unicode code point, arrays in order, integers only, minimal string escaping, no whitespace");
    expect(proof.merkle_alg).toContain("RFC 6962");
    expect(proof.receipts.map((x: any) => x.id)).toEqual(minted.map((m) => m.id));
    for (const [i, item] of (proof.receipts as any[]).entries()) {
      expect(item.index).toBe(i);
      expect(item.receipt).toBe(minted[i]!.receipt);
      expect(item.leaf_hash).toBe(Buffer.from(hashLeaf(new TextEncoder().encode(item.receipt))).toString("hex"));
      expect(verifyReceiptInclusion(item.receipt, i, proof.tree_size, item.proof, proof.root)).toBe(true);
      // …and not at another position, nor under another root.
      expect(verifyReceiptInclusion(item.receipt, (i + 1) % 7, proof.tree_size, item.proof, proof.root)).toBe(false);
      expect<string>(await recoverMessageAddress({ message: item.receipt, signature: item.signature as Hex })).toBe(h.ctx.signer.address);
      expect(item.signer).toBe(h.ctx.signer.address);
    }
    // A receipt of another run does not verify under this root.
    const stranger = settle(accountId, "x");
    expect(verifyReceiptInclusion(stranger.receipt, 0, 7, proof.receipts[0].proof, proof.root)).toBe(false);

    expect(proof.anchor.root).toBe(proof.root);
    expect(proof.anchor.memo).toBe(`svc:v1:${proof.root}`);
    expect(proof.anchor.anchors).toHaveLength(1); // no evm chain configured: the log only
    expect(proof.anchor.anchors[0]).toMatchObject({ backend: "log", status: "anchored", external_id: expect.stringMatching(/^alog_/), explorer_url: null, confirmed_at: expect.any(String) });
    expect(proof.anchor.anchors[0].verify).toContain("EIP-191");

    // The same root is public, with the same anchors.
    const doc = await h.json("GET", `/v1/anchors/${proof.root}`);
    expect(doc.status).toBe(200);
    expect(doc.body.anchors).toEqual(proof.anchor.anchors);
    expect(doc.body.leaves.map((l: any) => l.leaf_hash)).toEqual(proof.receipts.map((x: any) => x.leaf_hash));
  });

  test("asking again for an unchanged run gives the same root and anchors nothing twice; a grown run gets a new root", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    settle(accountId, "grow");
    settle(accountId, "grow");
    const a = (await post("/v1/runs/grow/proof", auth)).body;
    const b = (await post("/v1/runs/grow/proof", auth)).body;
    expect(b.root).toBe(a.root);
    expect(b.anchor).toEqual(a.anchor);
    const logEntries = () => h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM anchor_log").get()!.n;
    expect(logEntries()).toBe(1);

    const third = settle(accountId, "grow");
    const c = (await post("/v1/runs/grow/proof", auth)).body;
    expect(c.root).not.toBe(a.root);
    expect(c.tree_size).toBe(3);
    expect(verifyReceiptInclusion(third.receipt, 2, 3, c.receipts[2].proof, c.root)).toBe(true);
    expect(logEntries()).toBe(2);
    expect((await get("/v1/runs/grow", auth)).body.root).toBe(c.root);
    // The older root still proves the receipts it covers.
    expect(verifyReceiptInclusion(a.receipts[1].receipt, 1, 2, a.receipts[1].proof, a.root)).toBe(true);
  });

  test("a one-receipt run: the root is the leaf hash and the proof is empty", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    const only = settle(accountId, "solo");
    const p = (await post("/v1/runs/solo/proof", auth)).body;
    expect(p.tree_size).toBe(1);
    expect(p.receipts[0].proof).toEqual([]);
    expect(p.root).toBe(Buffer.from(hashLeaf(new TextEncoder().encode(only.receipt))).toString("hex"));
  });

  test("another account's run and an unknown run answer 404, and nothing is anchored", async () => {
    h = makeHarness();
    const a = owner();
    const b = owner();
    settle(b.accountId, "b-run");
    expect((await post("/v1/runs/b-run/proof", a.auth)).status).toBe(404);
    expect((await post("/v1/runs/none/proof", a.auth)).status).toBe(404);
    expect(h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM merkle_roots").get()!.n).toBe(0);
  });
});

describe("POST /v1/runs/:id/audit", () => {
  function keyed() {
    const { accountId, auth } = owner();
    const key = apiKeyFor(h.ctx, accountId, { scopes: ["inference"], monthlyCap: 50_000_000 });
    return { accountId, auth, key };
  }

  test("eu_ai_act: an evidence mapping, not a certification, computed from the run's records", async () => {
    h = makeHarness();
    const { accountId, auth, key } = keyed();
    settle(accountId, "audited", { keyId: key.id, cost: 40 });
    settle(accountId, "audited", { keyId: key.id, cost: 60, kind: "sandbox" });

    const before = await post("/v1/runs/audited/audit?framework=eu_ai_act", auth);
    expect(before.status).toBe(200);
    const body = before.body;
    expect(body).toMatchObject({ run_id: "audited", kind: "evidence_mapping", certification: false });
    expect(body.disclaimer).toContain("not a certification");
    expect(body.frameworks.map((f: any) => f.framework)).toEqual(["eu_ai_act"]);
    expect(body.evidence.receipts).toMatchObject({ count: 2, kinds: ["inference", "sandbox"], cost_micro_usd: 100, statuses: { succeeded: 2 }, metadata_only: true });
    expect(body.evidence.signatures).toMatchObject({ valid: 2, invalid: 0, signers: [h.ctx.signer.address] });
    expect(body.evidence.spend_controls.keys).toEqual([expect.objectContaining({ key_id: key.id, scopes: ["inference"], monthly_cap_micro_usd: 50_000_000, revoked: false, frozen: false })]);
    expect(body.evidence.anchored).toBe(false);
    const controls = Object.fromEntries(body.frameworks[0].controls.map((c: any) => [c.id, c]));
    expect(Object.keys(controls)).toEqual(["Art. 12(1)", "Art. 12(2)", "Art. 13", "Art. 14", "Art. 15", "Art. 19 / Art. 26(6)"]);
    expect(controls["Art. 12(1)"].status).toBe("evidence_present");
    expect(controls["Art. 14"].status).toBe("evidence_present"); // a cap and the default breaker
    expect(controls["Art. 19 / Art. 26(6)"]).toMatchObject({ status: "partial", gaps: [expect.stringContaining("proof")] });

    // Once a root over the run is anchored, the record-keeping gaps close.
    await post("/v1/runs/audited/proof", auth);
    const after = (await post("/v1/runs/audited/audit?framework=eu_ai_act", auth)).body;
    expect(after.evidence.anchored).toBe(true);
    expect(after.evidence.anchor.anchors[0].backend).toBe("log");
    const closed = Object.fromEntries(after.frameworks[0].controls.map((c: any) => [c.id, c.status]));
    expect(closed["Art. 19 / Art. 26(6)"]).toBe("evidence_present");
    expect(closed["Art. 15"]).toBe("evidence_present");
  });

  test("soc2: Trust Services Criteria; an unscoped key without a breaker shows its gaps", async () => {
    h = makeHarness({ config: (c) => (c.keys.breaker_micro_usd_per_minute = 0) });
    const { accountId, auth } = owner();
    const key = apiKeyFor(h.ctx, accountId);
    settle(accountId, "s", { keyId: key.id });
    const r = await post("/v1/runs/s/audit?framework=soc2", auth);
    expect(r.status).toBe(200);
    expect(r.body.frameworks.map((f: any) => f.framework)).toEqual(["soc2"]);
    const controls = Object.fromEntries(r.body.frameworks[0].controls.map((c: any) => [c.id, c]));
    expect(Object.keys(controls)).toEqual(["CC6.1", "CC6.3", "CC7.2", "PI1.3", "PI1.4", "PI1.5"]);
    expect(controls["CC6.1"].status).toBe("evidence_present");
    expect(controls["CC6.3"].status).toBe("not_evidenced");
    expect(controls["CC7.2"]).toMatchObject({ status: "partial", gaps: ["no circuit breaker on the run's keys"] });
    expect(controls["PI1.4"].status).toBe("evidence_present");
  });

  test("no framework maps both; another framework is a clear 400; another account's run is 404", async () => {
    h = makeHarness();
    const { accountId, auth } = owner();
    const other = owner();
    settle(accountId, "both");
    const both = await post("/v1/runs/both/audit", auth);
    expect(both.status).toBe(200);
    expect(both.body.frameworks.map((f: any) => f.framework)).toEqual(["eu_ai_act", "soc2"]);

    const bad = await post("/v1/runs/both/audit?framework=hipaa", auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: "invalid_request", param: "framework" });
    expect(bad.body.error.message).toContain("eu_ai_act, soc2");

    expect((await post("/v1/runs/both/audit?framework=soc2", other.auth)).status).toBe(404);
  });
});
