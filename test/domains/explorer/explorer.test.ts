/**
 * GET /v1/explorer (public): aggregate proof counts, recent shared receipts (and nothing of
 * unshared ones), recent anchors, and an empty passports list with its note.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { batchNewReceipts } from "../../../src/domains/anchors/service.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

function owner() {
  const { account, session } = accountWithSession(h.ctx);
  h.ctx.ledger.credit(account.id, 1_000_000_000, { type: "deposit" });
  return { accountId: account.id, auth: bearer(session.token) };
}

function settle(accountId: string, runId: string | null, kind = "inference", cost = 500) {
  const r = h.ctx.meter.reserve({ accountId, keyId: null, amount: cost, kind, resource: "gpt-test", resourceType: "model", runId });
  const s = h.ctx.meter.settle(r, cost, { units: {} });
  h.clock.advance(1_000);
  return s.receipt!;
}

describe("GET /v1/explorer", () => {
  test("an empty deployment: zero counts, empty lists, passports to come", async () => {
    h = makeHarness();
    const r = await h.json("GET", "/v1/explorer");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      counts: { receipts_minted: 0, receipts_shared: 0, runs: 0, roots: 0, batches: 0, roots_anchored: { log: 0, evm: 0 } },
      recent_shared_receipts: [],
      recent_anchors: [],
      passports: [],
      note: expect.stringContaining("Passports"),
    });
  });

  test("counts proofs; lists only shared receipts, newest share first; lists recent anchors; needs no credential", async () => {
    h = makeHarness();
    const a = owner();
    const b = owner();
    const secret = settle(a.accountId, "run-1", "inference", 111);
    const sharedOld = settle(a.accountId, "run-1", "sandbox", 222);
    const sharedNew = settle(b.accountId, "run-1", "embedding", 333); // same run id, another account: another run
    settle(b.accountId, null);
    const p = (await h.json("POST", "/v1/runs/run-1/proof", { headers: a.auth })).body;
    batchNewReceipts(h.ctx);
    expect((await h.json("POST", `/v1/receipts/${sharedOld.id}/share`, { headers: a.auth })).status).toBe(200);
    h.clock.advance(1_000);
    expect((await h.json("POST", `/v1/receipts/${sharedNew.id}/share`, { headers: b.auth })).status).toBe(200);

    const r = await h.json("GET", "/v1/explorer");
    expect(r.status).toBe(200);
    expect(r.body.counts).toEqual({ receipts_minted: 4, receipts_shared: 2, runs: 2, roots: 2, batches: 1, roots_anchored: { log: 2, evm: 0 } });
    expect(r.body.recent_shared_receipts).toEqual([
      { id: sharedNew.id, kind: "embedding", status: "succeeded", cost_micro_usd: 333, created_at: expect.any(String), shared_at: expect.any(String), url: `${h.ctx.config.public_url}/v1/receipts/shared/${sharedNew.id}` },
      { id: sharedOld.id, kind: "sandbox", status: "succeeded", cost_micro_usd: 222, created_at: expect.any(String), shared_at: expect.any(String), url: `${h.ctx.config.public_url}/v1/receipts/shared/${sharedOld.id}` },
    ]);
    const text = JSON.stringify(r.body);
    expect(text).not.toContain(secret.id);
    expect(text).not.toContain(a.accountId);
    expect(text).not.toContain("run-1");
    expect(r.body.recent_anchors).toHaveLength(2);
    expect(r.body.recent_anchors.map((x: any) => x.root)).toContain(p.root);
    expect(r.body.recent_anchors[0]).toMatchObject({ backend: "log", status: "anchored", url: expect.stringContaining("/v1/anchors/") });

    // Unsharing takes a receipt off the page.
    expect((await h.json("DELETE", `/v1/receipts/${sharedNew.id}/share`, { headers: b.auth })).status).toBe(200);
    const after = (await h.json("GET", "/v1/explorer")).body;
    expect(after.recent_shared_receipts.map((x: any) => x.id)).toEqual([sharedOld.id]);
    expect(after.counts.receipts_shared).toBe(1);
  });
});
