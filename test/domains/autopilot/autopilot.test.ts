/**
 * /v1/autopilot through HTTP with real usage and real eval runs: analyze writes a switch_model
 * proposal (a cheaper model that passes the same evals) and a set_key_cap proposal with their
 * evidence; the owner adopts them and the change is in force (the next call on the pricey model
 * is served and billed as the cheaper one; the key has its cap); re-analysis replaces open
 * proposals; adopting is refused on a regression; another tenant's ids answer 404.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { monthOf } from "../../../src/core/meter.ts";
import { modelRoutesOf } from "../../../src/domains/inference/index.ts";
import { repoint } from "../evals/evals-support.ts";
import type { Gateway } from "../inference/inference-support.ts";
import { analyze, chat, evalRuns, kindOf, PRICE, runOn, startAutopilotGateway, type Tenant, tenant, usageOf } from "./autopilot-support.ts";

let g: Gateway;
beforeAll(async () => {
  g = await startAutopilotGateway();
});
afterAll(() => g.stop());

/** Both pricier models pass both cases; small fails the second. */
const SHARED_CASES = [
  { input: "first [[say yes]]", expected: "yes", assert: "exact" },
  { input: "second [[say@stub-big yes]] [[say@stub-mid yes]] [[say no]]", expected: "yes", assert: "exact" },
];

const later = () => g.h.clock.advance(1000);

/** A tenant that spent on big-model with its key and ran the shared eval on all three models. */
async function pricedTenant(): Promise<Tenant & { evalId: string; runs: Record<string, any> }> {
  const who = tenant(g);
  await chat(g, who, "big-model", 3);
  const { evalId, runs } = await evalRuns(g, who, SHARED_CASES, ["big-model", "mid-model", "small-model"]);
  later();
  return { ...who, evalId, runs };
}

describe("analyze, then adopt as the owner", () => {
  test("switch_model and set_key_cap proposals with their evidence; adopting applies both", async () => {
    const who = await pricedTenant();
    expect(who.runs["small-model"].pass_rate).toBe(0.5);
    const r = await analyze(g, who, { days: 7 });
    expect(r.status).toBe(201);
    const now = g.h.clock.now();
    // Usage on each model: the key's chat calls on big, and the eval runs' calls (keyless) on all three.
    const events = usageOf(g, who.accountId).filter((e) => e.kind === "inference");
    const onBig = events.filter((e) => e.resource === "big-model");
    const sum = (xs: any[], f: (x: any) => number) => xs.reduce((n, x) => n + f(x), 0);
    expect(r.body.analyzed).toEqual({
      period: { from: new Date(now - 7 * 86_400_000).toISOString(), to: new Date(now).toISOString() },
      calls: events.length,
      spend_micro_usd: sum(events, (e) => e.cost_micro_usd),
      models: 3,
      keys: 1,
      not_written: 0,
      already_rejected: 0,
    });

    const [sw] = kindOf(r.body.proposals, "switch_model");
    const [cap] = kindOf(r.body.proposals, "set_key_cap");
    expect(r.body.proposals.length).toBe(2);
    const input = sum(onBig, (e) => e.units.input_tokens);
    const output = sum(onBig, (e) => e.units.output_tokens);
    const spend = sum(onBig, (e) => e.cost_micro_usd);
    const estimated = Math.ceil((input * PRICE.mid.input + output * PRICE.mid.output) / 1_000_000);
    expect(sw).toMatchObject({
      status: "open",
      account_id: who.accountId,
      org_id: null,
      target: "model:big-model",
      change: { action: "route_model", from: "big-model", to: "mid-model" },
      applied: null,
      adopted_by: null,
      created_at: new Date(now).toISOString(),
      evidence: {
        model: "big-model",
        candidate: "mid-model",
        calls: onBig.length,
        spend_micro_usd: spend,
        input_tokens: input,
        output_tokens: output,
        model_price: { input_micro_usd_per_mtok: PRICE.big.input, output_micro_usd_per_mtok: PRICE.big.output },
        candidate_price: { input_micro_usd_per_mtok: PRICE.mid.input, output_micro_usd_per_mtok: PRICE.mid.output },
        estimated_candidate_cost_micro_usd: estimated,
        estimated_saving_micro_usd: spend - estimated,
        regression: false,
      },
    });
    expect(sw.id).toMatch(/^apr_/);
    expect(sw.evidence.evals).toEqual([
      {
        eval_id: who.evalId,
        threshold: 1,
        model: { run_id: who.runs["big-model"].id, pass_rate: 1, passed: 2, total: 2, passed_threshold: true, regression: false, run_at: who.runs["big-model"].created_at },
        candidate: { run_id: who.runs["mid-model"].id, pass_rate: 1, passed: 2, total: 2, passed_threshold: true, regression: false, run_at: who.runs["mid-model"].created_at },
      },
    ]);
    // Numbers and ids only: nothing the calls or the cases said.
    expect(JSON.stringify(r.body)).not.toContain("weekly report");
    expect(JSON.stringify(r.body)).not.toContain("[[say");

    const keySpend = g.h.ctx.meter.monthSpend(who.keyId).spent;
    expect(keySpend).toBeGreaterThan(0);
    const expectedCap = Math.ceil((keySpend * 1.5) / 10_000) * 10_000;
    expect(cap).toMatchObject({
      target: `key:${who.keyId}`,
      change: { action: "set_key_monthly_cap", key_id: who.keyId, monthly_cap_micro_usd: expectedCap },
      evidence: { key_id: who.keyId, highest_month_micro_usd: keySpend, months: [{ month: monthOf(now), spent_micro_usd: keySpend }], regression: false },
    });

    // Read back: the list (newest first) and one.
    const list = await g.h.json("GET", "/v1/autopilot/proposals", { headers: who.auth });
    expect(list.status).toBe(200);
    expect(list.body.proposals.map((p: any) => p.id).sort()).toEqual([sw.id, cap.id].sort());
    const one = await g.h.json("GET", `/v1/autopilot/proposals/${sw.id}`, { headers: who.auth });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(sw);

    // Adopt the switch: the route is set, and the next call on big-model is served and billed as mid-model.
    later();
    const adopted = await g.h.json("POST", `/v1/autopilot/proposals/${sw.id}/adopt`, { headers: who.auth });
    expect(adopted.status).toBe(200);
    expect(adopted.body).toMatchObject({ status: "adopted", adopted_by: who.accountId, adopted_at: new Date(g.h.clock.now()).toISOString(), applied: { from: "big-model", to: "mid-model", previous_to: null } });
    expect(modelRoutesOf(g.h.ctx, who.accountId).map(({ from, to }) => ({ from, to }))).toEqual([{ from: "big-model", to: "mid-model" }]);
    const before = usageOf(g, who.accountId).length;
    await chat(g, who, "big-model");
    const [served] = usageOf(g, who.accountId).slice(before);
    expect(served.resource).toBe("mid-model");
    expect(served.units.attestations.routing.routed_from).toBe("big-model");
    expect(served.cost_micro_usd).toBe(Math.ceil((served.units.input_tokens * PRICE.mid.input + served.units.output_tokens * PRICE.mid.output) / 1_000_000));

    // Adopt the cap: the key has it.
    const capped = await g.h.json("POST", `/v1/autopilot/proposals/${cap.id}/adopt`, { headers: who.auth });
    expect(capped.status).toBe(200);
    expect(capped.body.applied).toEqual({ key_id: who.keyId, monthly_cap_micro_usd: expectedCap, previous_monthly_cap_micro_usd: null });
    const keys = await g.h.json("GET", "/v1/keys", { headers: who.auth });
    expect(keys.body.find((k: any) => k.id === who.keyId).monthly_cap_micro_usd).toBe(expectedCap);

    // Once only.
    const again = await g.h.json("POST", `/v1/autopilot/proposals/${sw.id}/adopt`, { headers: who.auth });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe("proposal_not_open");
    const rejectAdopted = await g.h.json("POST", `/v1/autopilot/proposals/${cap.id}/reject`, { headers: who.auth, body: {} });
    expect(rejectAdopted.status).toBe(409);
    expect(rejectAdopted.body.error.type).toBe("proposal_not_open");

    // Nothing left to propose: big-model is routed, the key is capped.
    later();
    const after = await analyze(g, who);
    expect(after.status).toBe(201);
    expect(after.body.proposals).toEqual([]);
  });

  test("re-analysis replaces the open proposals of the same kind and target; decided ones stay as history", async () => {
    const who = await pricedTenant();
    const first = await analyze(g, who);
    const [oldSwitch] = kindOf(first.body.proposals, "switch_model");
    const [oldCap] = kindOf(first.body.proposals, "set_key_cap");
    const rejected = await g.h.json("POST", `/v1/autopilot/proposals/${oldCap.id}/reject`, { headers: who.auth, body: { reason: "  we cap by hand  " } });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: "rejected", rejected_by: who.accountId, rejected_at: new Date(g.h.clock.now()).toISOString(), reject_reason: "we cap by hand" });

    later();
    const second = await analyze(g, who);
    const [newSwitch] = kindOf(second.body.proposals, "switch_model");
    // The rejected cap is not proposed again (same key, same cap); the switch is replaced.
    expect(second.body.proposals).toEqual([newSwitch]);
    expect(second.body.analyzed).toMatchObject({ already_rejected: 1, not_written: 0 });
    const old = await g.h.json("GET", `/v1/autopilot/proposals/${oldSwitch.id}`, { headers: who.auth });
    expect(old.body).toMatchObject({ status: "superseded", superseded_by: newSwitch.id, superseded_at: new Date(g.h.clock.now()).toISOString() });

    const all = await g.h.json("GET", "/v1/autopilot/proposals", { headers: who.auth });
    expect(all.body.proposals[0].id).toBe(newSwitch.id);
    expect(all.body.proposals.map((p: any) => p.id).sort()).toEqual([newSwitch.id, oldSwitch.id, oldCap.id].sort());
    const open = await g.h.json("GET", "/v1/autopilot/proposals?status=open", { headers: who.auth });
    expect(open.body.proposals.map((p: any) => p.id)).toEqual([newSwitch.id]);
    const history = await g.h.json("GET", "/v1/autopilot/proposals?status=rejected", { headers: who.auth });
    expect(history.body.proposals.map((p: any) => p.id)).toEqual([oldCap.id]);
    const one = await g.h.json("GET", "/v1/autopilot/proposals?limit=1", { headers: who.auth });
    expect(one.body.proposals.map((p: any) => p.id)).toEqual([newSwitch.id]);

  });

  test("no eval both models ran: no switch proposal (no evidence the cheaper model does the job)", async () => {
    const who = tenant(g);
    await chat(g, who, "big-model", 2);
    await evalRuns(g, who, SHARED_CASES, ["big-model"]);
    later();
    const r = await analyze(g, who);
    expect(r.status).toBe(201);
    expect(r.body.proposals.map((p: any) => p.kind)).toEqual(["set_key_cap"]);
  });

  test("a cheaper model that passes less is not proposed; an account without usage gets nothing", async () => {
    const who = tenant(g);
    await chat(g, who, "big-model", 1);
    await evalRuns(g, who, SHARED_CASES, ["big-model", "small-model"]);
    later();
    const r = await analyze(g, who);
    expect(kindOf(r.body.proposals, "switch_model")).toEqual([]);
    const idle = tenant(g);
    const none = await analyze(g, idle);
    expect(none.status).toBe(201);
    expect(none.body).toMatchObject({ proposals: [], analyzed: { calls: 0, spend_micro_usd: 0, models: 0, keys: 1, not_written: 0, already_rejected: 0 } });
  });
});

describe("regressions", () => {
  test("adopting re-reads the eval runs: a later run where the candidate passes less refuses it (409 proposal_regressed) and changes nothing", async () => {
    const who = await pricedTenant();
    const r = await analyze(g, who);
    const [sw] = kindOf(r.body.proposals, "switch_model");
    expect(sw.evidence.regression).toBe(false);

    // A second eval the cheaper model fails.
    const worse = await evalRuns(g, who, [{ input: "third [[say@stub-big yes]] [[say no]]", expected: "yes", assert: "exact" }], ["big-model", "mid-model"]);
    const refused = await g.h.json("POST", `/v1/autopilot/proposals/${sw.id}/adopt`, { headers: who.auth });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      type: "proposal_regressed",
      regressed: [{ eval_id: worse.evalId, run_id: worse.runs["mid-model"].id, pass_rate: 0, model_pass_rate: 1, flagged: false }],
    });
    expect(modelRoutesOf(g.h.ctx, who.accountId)).toEqual([]);
    const still = await g.h.json("GET", `/v1/autopilot/proposals/${sw.id}`, { headers: who.auth });
    expect(still.body).toMatchObject({ status: "open", adopted_by: null, applied: null });

    // A fresh analysis no longer proposes mid-model, which now passes less on a shared eval.
    later();
    const again = await analyze(g, who);
    expect(kindOf(again.body.proposals, "switch_model")).toEqual([]);
    // The old one was not replaced (no new proposal for its target): it stays open, and still cannot be adopted.
    const retry = await g.h.json("POST", `/v1/autopilot/proposals/${sw.id}/adopt`, { headers: who.auth });
    expect(retry.body.error.type).toBe("proposal_regressed");
  });

  test("a proposal whose evidence shows a regression (the candidate's latest run is flagged) is written, and refused", async () => {
    const who = tenant(g);
    await chat(g, who, "big-model", 2);
    // big passes 1 of 2; mid passes 2 of 2, then, once a worse model answers for it, 1 of 2: the evals area flags that
    // run a regression (it passes less than the run before), yet mid is still as good as big.
    const cases = [
      { input: "a [[say yes]]", expected: "yes", assert: "exact" },
      { input: "b [[say@stub-mid yes]] [[say no]]", expected: "yes", assert: "exact" },
    ];
    const made = await g.h.json("POST", "/v1/evals", { headers: who.auth, body: { name: "drift", model: "big-model", threshold: 0.5, cases } });
    await runOn(g, who, made.body.id, "big-model");
    await runOn(g, who, made.body.id, "mid-model");
    repoint(g, "mid-model", "stub-mid-worse");
    try {
      const flagged = await runOn(g, who, made.body.id, "mid-model");
      expect(flagged).toMatchObject({ pass_rate: 0.5, regression: true });
    } finally {
      repoint(g, "mid-model", "stub-mid");
    }
    later();
    const r = await analyze(g, who);
    const [sw] = kindOf(r.body.proposals, "switch_model");
    expect(sw.evidence).toMatchObject({ candidate: "mid-model", regression: true });
    expect(sw.evidence.evals[0].candidate).toMatchObject({ pass_rate: 0.5, regression: true });
    expect(sw.summary).toContain("cannot be adopted");
    const refused = await g.h.json("POST", `/v1/autopilot/proposals/${sw.id}/adopt`, { headers: who.auth });
    expect(refused.status).toBe(409);
    expect(refused.body.error.type).toBe("proposal_regressed");
    expect(refused.body.error.regressed[0]).toMatchObject({ eval_id: made.body.id, flagged: true });
    expect(modelRoutesOf(g.h.ctx, who.accountId)).toEqual([]);
  });
});

describe("tenancy", () => {
  test("another account's proposal ids answer 404 on every route, and its list does not show them", async () => {
    const who = await pricedTenant();
    const r = await analyze(g, who);
    const stranger = tenant(g);
    for (const p of r.body.proposals) {
      for (const [method, path, body] of [
        ["GET", `/v1/autopilot/proposals/${p.id}`, undefined],
        ["POST", `/v1/autopilot/proposals/${p.id}/adopt`, undefined],
        ["POST", `/v1/autopilot/proposals/${p.id}/reject`, { reason: "mine now" }],
      ] as const) {
        const res = await g.h.json(method, path, { headers: stranger.auth, body });
        expect([path, res.status, res.body.error?.type]).toEqual([path, 404, "not_found"]);
      }
    }
    const unknown = await g.h.json("GET", "/v1/autopilot/proposals/apr_nope", { headers: stranger.auth });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual((await g.h.json("GET", `/v1/autopilot/proposals/${r.body.proposals[0].id}`, { headers: stranger.auth })).body.error);
    const list = await g.h.json("GET", "/v1/autopilot/proposals", { headers: stranger.auth });
    expect(list.body).toEqual({ proposals: [] });
    // Nothing changed for the owner.
    const mine = await g.h.json("GET", `/v1/autopilot/proposals/${r.body.proposals[0].id}`, { headers: who.auth });
    expect(mine.body.status).toBe("open");
  });

  test("without a session: 401", async () => {
    for (const [method, path] of [
      ["POST", "/v1/autopilot/analyze"],
      ["GET", "/v1/autopilot/proposals"],
      ["GET", "/v1/autopilot/proposals/apr_x"],
      ["POST", "/v1/autopilot/proposals/apr_x/adopt"],
      ["POST", "/v1/autopilot/proposals/apr_x/reject"],
    ] as const) {
      const res = await g.h.json(method, path, { body: method === "POST" ? {} : undefined });
      expect([path, res.status]).toEqual([path, 401]);
    }
  });
});
