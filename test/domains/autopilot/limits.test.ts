/**
 * The autopilot's limits and refusals without a model upstream: bad input named by field, the
 * open-proposal cap (100 per account), the list's limit, a proposal that no longer holds
 * (409 proposal_stale), and the rules behind the numbers (the cap formula, the months a period
 * touches, the eval comparison).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { monthOf } from "../../../src/core/meter.ts";
import { MAX_MICRO_USD } from "../../../src/core/money.ts";
import { type EvalRunSummary } from "../../../src/domains/evals/index.ts";
import { mintKey, setKeyMonthlyCap } from "../../../src/domains/keys/index.ts";
import { monthsOf, proposedCap } from "../../../src/domains/autopilot/key-cap.ts";
import { OPEN_PROPOSALS_CAP } from "../../../src/domains/autopilot/limits.ts";
import { evalEvidence } from "../../../src/domains/autopilot/switch-model.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

let h: Harness;
afterEach(() => h?.close());

const DAY = 86_400_000;

function person() {
  const { account, session } = accountWithSession(h.ctx);
  h.ctx.ledger.credit(account.id, 100_000_000, { type: "deposit" });
  return { accountId: account.id, auth: bearer(session.token) };
}

/** An uncapped standard key of the account that spent `cost` this month (metered as a settled call). */
function spendingKey(accountId: string, cost: number): string {
  const { view } = mintKey(h.ctx, { accountId, kind: "standard" });
  const r = h.ctx.meter.reserve({ accountId, keyId: view.id, amount: cost, kind: "inference", resource: "retired-model" });
  h.ctx.meter.settle(r, cost);
  return view.id;
}

describe("bad input", () => {
  test("each route names the field at fault", async () => {
    h = makeHarness();
    const me = person();
    const cases: [string, string, unknown, string][] = [
      ["POST", "/v1/autopilot/analyze", { days: 0 }, "days"],
      ["POST", "/v1/autopilot/analyze", { days: 91 }, "days"],
      ["POST", "/v1/autopilot/analyze", { days: "30" }, "days"],
      ["POST", "/v1/autopilot/analyze", { days: 1.5 }, "days"],
      ["POST", "/v1/autopilot/analyze", { org_id: "" }, "org_id"],
      ["POST", "/v1/autopilot/analyze", { org_id: 7 }, "org_id"],
      ["POST", "/v1/autopilot/analyze", { colour: "red" }, "colour"],
      ["GET", "/v1/autopilot/proposals?limit=0", undefined, "limit"],
      ["GET", "/v1/autopilot/proposals?limit=ten", undefined, "limit"],
      ["GET", "/v1/autopilot/proposals?status=pending", undefined, "query.status"],
      ["POST", "/v1/autopilot/proposals/apr_x/reject", { reason: "x".repeat(501) }, "reason"],
      ["POST", "/v1/autopilot/proposals/apr_x/reject", { why: "no" }, "why"],
    ];
    for (const [method, path, body, param] of cases) {
      const r = await h.json(method, path, { headers: me.auth, body });
      expect([path, body, r.status, r.body.error?.param]).toEqual([path, body, 400, param]);
    }
    // Hostile bodies and ids: refused in the declared shapes, never a 5xx.
    for (const raw of ["null", "[]", '"x"', "{", '{"days": 1e308}', '{"org_id": "../../etc/passwd"}']) {
      const r = await h.json("POST", "/v1/autopilot/analyze", { headers: { ...me.auth, "content-type": "application/json" }, raw });
      expect([raw, r.status < 500, [201, 400, 404].includes(r.status)]).toEqual([raw, true, true]);
    }
    for (const id of ["x".repeat(101), "..%2F..%2Fetc", "'; DROP TABLE autopilot_proposals; --"]) {
      for (const path of [`/v1/autopilot/proposals/${encodeURIComponent(id)}`, `/v1/autopilot/proposals/${encodeURIComponent(id)}/adopt`]) {
        const r = await h.json(path.endsWith("adopt") ? "POST" : "GET", path, { headers: me.auth });
        expect([path, [400, 404].includes(r.status)]).toEqual([path, true]);
      }
    }
    // An empty body (or none) is the defaults.
    const none = await h.json("POST", "/v1/autopilot/analyze", { headers: me.auth });
    expect(none.status).toBe(201);
    expect(Date.parse(none.body.analyzed.period.to) - Date.parse(none.body.analyzed.period.from)).toBe(30 * DAY);
    const unknown = await h.json("POST", "/v1/autopilot/proposals/apr_unknown/adopt", { headers: me.auth });
    expect(unknown.status).toBe(404);
  });
});

describe("caps", () => {
  test(`at most ${OPEN_PROPOSALS_CAP} open proposals: the most at stake are written, the rest counted; re-analysis replaces, never adds`, async () => {
    h = makeHarness();
    const me = person();
    const keys = Array.from({ length: OPEN_PROPOSALS_CAP + 1 }, (_, i) => spendingKey(me.accountId, 10_000 + i));
    h.clock.advance(1000);
    const first = await h.json("POST", "/v1/autopilot/analyze", { headers: me.auth, body: { days: 1 } });
    expect(first.status).toBe(201);
    expect(first.body.analyzed).toMatchObject({ keys: OPEN_PROPOSALS_CAP + 1, not_written: 1, calls: OPEN_PROPOSALS_CAP + 1, models: 1 });
    expect(first.body.proposals.length).toBe(OPEN_PROPOSALS_CAP);
    // The key that spent least is the one left out.
    expect(first.body.proposals.map((p: any) => p.change.key_id)).not.toContain(keys[0]);
    expect(first.body.proposals[0].change.key_id).toBe(keys[OPEN_PROPOSALS_CAP]);

    h.clock.advance(1000);
    const second = await h.json("POST", "/v1/autopilot/analyze", { headers: me.auth, body: { days: 1 } });
    expect(second.body.proposals.length).toBe(OPEN_PROPOSALS_CAP);
    expect(second.body.analyzed.not_written).toBe(1);
    const open = await h.json("GET", `/v1/autopilot/proposals?status=open&limit=500`, { headers: me.auth });
    expect(open.body.proposals.length).toBe(OPEN_PROPOSALS_CAP);
    const all = await h.json("GET", "/v1/autopilot/proposals?limit=500", { headers: me.auth });
    expect(all.body.proposals.length).toBe(200);
    const page = await h.json("GET", "/v1/autopilot/proposals", { headers: me.auth });
    expect(page.body.proposals.length).toBe(50);

    // Deciding one makes room for the key left out (a rejected change is not proposed again).
    const rejected = await h.json("POST", `/v1/autopilot/proposals/${second.body.proposals[0].id}/reject`, { headers: me.auth });
    expect(rejected.status).toBe(200);
    h.clock.advance(1000);
    const third = await h.json("POST", "/v1/autopilot/analyze", { headers: me.auth, body: { days: 1 } });
    expect(third.body.analyzed).toMatchObject({ not_written: 0, already_rejected: 1 });
    expect(third.body.proposals.map((p: any) => p.change.key_id)).toContain(keys[0]);
  });

  test("a rejected change is not proposed again; a different change for the same key is", async () => {
    h = makeHarness();
    const me = person();
    const key = spendingKey(me.accountId, 100_000);
    h.clock.advance(1000);
    const first = await h.json("POST", "/v1/autopilot/analyze", { headers: me.auth });
    const [p] = first.body.proposals;
    expect(p.change).toEqual({ action: "set_key_monthly_cap", key_id: key, monthly_cap_micro_usd: 150_000 });
    expect((await h.json("POST", `/v1/autopilot/proposals/${p.id}/reject`, { headers: me.auth, body: { reason: "too low" } })).status).toBe(200);
    h.clock.advance(1000);
    const same = await h.json("POST", "/v1/autopilot/analyze", { headers: me.auth });
    expect(same.body).toMatchObject({ proposals: [], analyzed: { already_rejected: 1 } });
    // The key spends more: the cap it would get changes, and that is proposed.
    const r = h.ctx.meter.reserve({ accountId: me.accountId, keyId: key, amount: 100_000, kind: "inference", resource: "retired-model" });
    h.ctx.meter.settle(r, 100_000);
    h.clock.advance(1000);
    const more = await h.json("POST", "/v1/autopilot/analyze", { headers: me.auth });
    expect(more.body.proposals.map((x: any) => x.change.monthly_cap_micro_usd)).toEqual([300_000]);
    expect(more.body.analyzed.already_rejected).toBe(0);
  });
});

describe("stale proposals", () => {
  test("a key revoked or capped since the analysis: 409 proposal_stale, nothing changed", async () => {
    h = makeHarness();
    const me = person();
    const revoked = spendingKey(me.accountId, 50_000);
    const capped = spendingKey(me.accountId, 40_000);
    h.clock.advance(1000);
    const r = await h.json("POST", "/v1/autopilot/analyze", { headers: me.auth, body: {} });
    const byKey = new Map(r.body.proposals.map((p: any) => [p.change.key_id, p]));
    expect(await h.json("DELETE", `/v1/keys/${revoked}`, { headers: me.auth })).toMatchObject({ status: 200 });
    setKeyMonthlyCap(h.ctx, me.accountId, capped, 1_000_000);
    for (const keyId of [revoked, capped]) {
      const p: any = byKey.get(keyId);
      const res = await h.json("POST", `/v1/autopilot/proposals/${p.id}/adopt`, { headers: me.auth });
      expect([keyId, res.status, res.body.error.type]).toEqual([keyId, 409, "proposal_stale"]);
      expect((await h.json("GET", `/v1/autopilot/proposals/${p.id}`, { headers: me.auth })).body.status).toBe("open");
    }
    const keys = await h.json("GET", "/v1/keys?include_revoked=true", { headers: me.auth });
    expect(keys.body.find((k: any) => k.id === capped).monthly_cap_micro_usd).toBe(1_000_000);
  });

  test("setKeyMonthlyCap: another account's key is 404, a revoked key 409", async () => {
    h = makeHarness();
    const me = person();
    const other = person();
    const key = spendingKey(me.accountId, 1);
    expect(() => setKeyMonthlyCap(h.ctx, other.accountId, key, 5)).toThrow("API key not found");
    expect(setKeyMonthlyCap(h.ctx, me.accountId, key, 5)).toMatchObject({ previous: null, key: { monthly_cap_micro_usd: 5 } });
    expect(setKeyMonthlyCap(h.ctx, me.accountId, key, null).previous).toBe(5);
    h.ctx.db.query("UPDATE api_keys SET revoked_at = 1 WHERE id = ?").run(key);
    expect(() => setKeyMonthlyCap(h.ctx, me.accountId, key, 5)).toThrow("a revoked key's cap cannot be changed");
  });
});

describe("the rules behind the numbers", () => {
  test("the proposed cap: busiest month × 3/2, up to a whole cent, at least a cent", () => {
    expect(proposedCap(1)).toBe(10_000);
    expect(proposedCap(10_000)).toBe(20_000);
    expect(proposedCap(20_000)).toBe(30_000);
    expect(proposedCap(1_234_567)).toBe(1_860_000);
    expect(proposedCap(MAX_MICRO_USD)).toBe(MAX_MICRO_USD);
  });

  test("the months a period touches", () => {
    const at = (s: string) => Date.parse(s);
    expect(monthsOf({ from: at("2026-10-22T12:00:00Z"), to: at("2026-11-21T12:00:00Z") })).toEqual(["2026-10", "2026-11"]);
    expect(monthsOf({ from: at("2026-11-01T00:00:00Z"), to: at("2026-12-01T00:00:00Z") })).toEqual(["2026-11"]);
    expect(monthsOf({ from: at("2026-12-30T00:00:00Z"), to: at("2027-02-01T00:00:01Z") })).toEqual(["2026-12", "2027-01", "2027-02"]);
    expect(monthOf(at("2026-11-21T12:00:00Z"))).toBe("2026-11");
  });

  test("eval evidence: only evals both models ran; a regression is a flagged run or a lower pass rate", () => {
    const run = (eval_id: string, model: string, pass_rate: number, regression = false): EvalRunSummary => ({
      eval_id,
      eval_name: eval_id,
      model,
      run_id: `run-${eval_id}-${model}`,
      pass_rate,
      passed: pass_rate * 10,
      total: 10,
      threshold: 0.8,
      passed_threshold: pass_rate >= 0.8,
      regression,
      created_at: 0,
    });
    const runs = [run("e1", "a", 0.9), run("e1", "b", 0.9), run("e2", "a", 1), run("e3", "b", 0.1)];
    const same = evalEvidence(runs, "a", "b");
    expect(same.evals.map((e) => e.eval_id)).toEqual(["e1"]);
    expect(same.regression).toBe(false);
    expect(evalEvidence([...runs, run("e2", "b", 0.8)], "a", "b").regression).toBe(true);
    expect(evalEvidence([run("e1", "a", 0.5), run("e1", "b", 0.7, true)], "a", "b").regression).toBe(true);
    expect(evalEvidence(runs, "a", "c").evals).toEqual([]);
  });
});
