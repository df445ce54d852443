/** /v1/evals/monitors through HTTP, with the scheduler driven by a moved clock: drift fires eval_drift_detected once, failed runs retry next interval, caps and bad input. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEval } from "../../../src/domains/evals/evals.ts";
import { MAX_MONITORS_PER_ACCOUNT } from "../../../src/domains/evals/limits.ts";
import { createMonitor } from "../../../src/domains/evals/monitors.ts";
import { registerJobs } from "../../../src/jobs.ts";
import type { Gateway } from "../inference/inference-support.ts";
import { driftCase, outboxOf, ownAuth, repoint, startEvalsGateway, tenant, USD } from "./evals-support.ts";

const HOUR = 3_600_000;
let g: Gateway;
beforeAll(async () => {
  g = await startEvalsGateway();
  registerJobs(g.h.ctx);
});
afterAll(() => g.stop());

async function tick(ms: number): Promise<void> {
  g.h.clock.advance(ms);
  await g.h.ctx.scheduler.runDue();
}

async function makeEval(auth: Record<string, string>, cases: unknown[], model = "drifty") {
  const r = await g.h.json("POST", "/v1/evals", { headers: auth, body: { name: "watched", model, cases } });
  if (r.status !== 201) throw new Error(`create failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id as string;
}

const runsOf = async (auth: Record<string, string>, evalId: string) => (await g.h.json("GET", `/v1/evals/${evalId}/runs`, { headers: auth })).body.runs as any[];

describe("a drift monitor", () => {
  test("runs hourly on the moved clock and fires eval_drift_detected exactly once when the pass rate drops", async () => {
    const auth = ownAuth(g);
    const evalId = await makeEval(auth, [driftCase(1), driftCase(2), driftCase(3), driftCase(4)]);
    // A manual run is the first baseline.
    const baseline = await g.h.json("POST", `/v1/evals/${evalId}/run`, { headers: auth, body: {} });
    expect(baseline.body.pass_rate).toBe(1);

    const made = await g.h.json("POST", "/v1/evals/monitors", { headers: auth, body: { eval_id: evalId, interval_s: 3600, drop_threshold: 0.5 } });
    expect(made.status).toBe(201);
    const monitor = made.body;
    expect(monitor).toMatchObject({ eval_id: evalId, model: "drifty", interval_s: 3600, drop_threshold: 0.5, enabled: true, last_run_at: null, last_error: null });
    expect(Date.parse(monitor.next_run_at)).toBe(g.h.clock.now() + HOUR);
    const drifts = () => outboxOf(g, "eval_drift_detected").filter((e) => e.payload.monitor_id === monitor.id);

    // Not due yet: nothing runs.
    await tick(HOUR - 1000);
    expect((await runsOf(auth, evalId)).length).toBe(1);

    // Due: runs, same result, no drift.
    await tick(1000);
    let runs = await runsOf(auth, evalId);
    expect(runs.length).toBe(2);
    expect(runs[0]).toMatchObject({ source: "monitor", monitor_id: monitor.id, status: "completed", pass_rate: 1, regression: false, previous_run_id: baseline.body.id });
    expect(drifts()).toEqual([]);

    // The model behind the id changes: the next run drops to 0 and drift fires, once.
    repoint(g, "drifty", "stub-bad");
    await tick(HOUR);
    runs = await runsOf(auth, evalId);
    expect(runs.length).toBe(3);
    expect(runs[0]).toMatchObject({ source: "monitor", pass_rate: 0, regression: true, previous_pass_rate: 1 });
    const events = drifts();
    expect(events.length).toBe(1);
    expect(events[0]!.account_id).toBe(g.accountId);
    expect(events[0]!.payload).toEqual({
      monitor_id: monitor.id,
      eval_id: evalId,
      eval_name: "watched",
      model: "drifty",
      run_id: runs[0].id,
      baseline_run_id: runs[1].id,
      previous_pass_rate: 1,
      pass_rate: 0,
      drop: 1,
      drop_threshold: 0.5,
      passed: 0,
      total: 4,
      detected_at: new Date(g.h.clock.now()).toISOString(),
    });
    expect(JSON.stringify(events[0]!.payload)).not.toContain("question");

    // Still bad, but no worse than the run before: no second event.
    await tick(HOUR);
    expect((await runsOf(auth, evalId)).length).toBe(4);
    expect(drifts().length).toBe(1);

    const listed = (await g.h.json("GET", "/v1/evals/monitors", { headers: auth })).body.monitors.find((m: { id: string }) => m.id === monitor.id);
    expect(listed).toMatchObject({ last_run_id: (await runsOf(auth, evalId))[0].id, last_error: null, last_drift_at: events[0]!.payload.detected_at });
    repoint(g, "drifty", "stub-good");

    // Every monitor run was billed like a manual one.
    for (const run of await runsOf(auth, evalId)) expect(run.receipt_ids.length).toBe(4);
    await g.h.json("DELETE", `/v1/evals/${evalId}`, { headers: auth });
  });

  test("a drop smaller than the threshold does not fire", async () => {
    const auth = ownAuth(g);
    // One case follows the model's upstream; the other passes at either.
    const evalId = await makeEval(auth, [driftCase(1), { input: "[[say steady]]", expected: "steady", assert: "exact" }]);
    await g.h.json("POST", "/v1/evals/monitors", { headers: auth, body: { eval_id: evalId, interval_s: 3600, drop_threshold: 0.6 } });
    await tick(HOUR); // first monitor run: the baseline, 1.0
    repoint(g, "drifty", "stub-bad");
    await tick(HOUR); // 0.5: a drop of 0.5 < 0.6
    const runs = await runsOf(auth, evalId);
    expect(runs.map((r) => r.pass_rate)).toEqual([0.5, 1]);
    expect(runs[0].regression).toBe(true);
    expect(outboxOf(g, "eval_drift_detected").filter((e) => e.payload.eval_id === evalId)).toEqual([]);
    repoint(g, "drifty", "stub-good");
    await g.h.json("DELETE", `/v1/evals/${evalId}`, { headers: auth });
  });

  test("a run the account cannot pay for records last_error and is tried again next interval", async () => {
    const t = tenant(g, 0);
    const evalId = await makeEval(t.auth, [{ input: "[[say ok]]", expected: "ok", assert: "exact" }], "gpt-test");
    const monitor = (await g.h.json("POST", "/v1/evals/monitors", { headers: t.auth, body: { eval_id: evalId, interval_s: 7200, drop_threshold: 0.1 } })).body;
    await tick(2 * HOUR);
    let m = (await g.h.json("GET", "/v1/evals/monitors", { headers: t.auth })).body.monitors[0];
    expect(m.last_error).toMatchObject({ type: "insufficient_credit" });
    expect(Date.parse(m.next_run_at)).toBe(g.h.clock.now() + 2 * HOUR);
    expect((await runsOf(t.auth, evalId))[0]).toMatchObject({ status: "failed", source: "monitor", monitor_id: monitor.id, cost_micro_usd: 0 });

    g.h.ctx.ledger.credit(t.accountId, USD, { type: "deposit" });
    await tick(2 * HOUR);
    m = (await g.h.json("GET", "/v1/evals/monitors", { headers: t.auth })).body.monitors[0];
    expect(m.last_error).toBeNull();
    const runs = await runsOf(t.auth, evalId);
    expect(runs.map((r) => r.status)).toEqual(["completed", "failed"]);
    expect(m.last_run_id).toBe(runs[0].id);
  });

  test("PATCH re-times or disables it; DELETE removes it; a disabled monitor does not run", async () => {
    const auth = ownAuth(g);
    const evalId = await makeEval(auth, [{ input: "[[say ok]]", expected: "ok", assert: "exact" }], "gpt-test");
    const monitor = (await g.h.json("POST", "/v1/evals/monitors", { headers: auth, body: { eval_id: evalId, interval_s: 3600, drop_threshold: 0.1 } })).body;
    const created = Date.parse(monitor.created_at);

    const slower = await g.h.json("PATCH", `/v1/evals/monitors/${monitor.id}`, { headers: auth, body: { interval_s: 4 * 3600, drop_threshold: 0.25 } });
    expect(slower.status).toBe(200);
    expect(slower.body).toMatchObject({ interval_s: 4 * 3600, drop_threshold: 0.25, enabled: true });
    expect(Date.parse(slower.body.next_run_at)).toBe(created + 4 * HOUR);
    await tick(HOUR); // the old hourly time: nothing runs
    expect(await runsOf(auth, evalId)).toEqual([]);

    const off = await g.h.json("PATCH", `/v1/evals/monitors/${monitor.id}`, { headers: auth, body: { enabled: false } });
    expect(off.body.enabled).toBe(false);
    await tick(5 * HOUR);
    expect(await runsOf(auth, evalId)).toEqual([]);

    // Enabled again long after its time: due now.
    const on = await g.h.json("PATCH", `/v1/evals/monitors/${monitor.id}`, { headers: auth, body: { enabled: true } });
    expect(Date.parse(on.body.next_run_at)).toBe(g.h.clock.now());
    await tick(0);
    expect((await runsOf(auth, evalId)).length).toBe(1);

    const gone = await g.h.json("DELETE", `/v1/evals/monitors/${monitor.id}`, { headers: auth });
    expect(gone).toMatchObject({ status: 200, body: { id: monitor.id, deleted: true } });
    expect((await g.h.json("DELETE", `/v1/evals/monitors/${monitor.id}`, { headers: auth })).status).toBe(404);
    await tick(8 * HOUR);
    expect((await runsOf(auth, evalId)).length).toBe(1);
    expect(g.h.ctx.db.query("SELECT count(*) AS n FROM jobs WHERE kind = 'evals.monitor' AND payload LIKE ?").get(`%${monitor.id}%`)).toEqual({ n: 0 });
  });

  test("deleting the eval deletes its monitors and their pending jobs", async () => {
    const auth = ownAuth(g);
    const evalId = await makeEval(auth, [{ input: "x", expected: "x", assert: "contains" }], "gpt-test");
    const monitor = (await g.h.json("POST", "/v1/evals/monitors", { headers: auth, body: { eval_id: evalId, interval_s: 3600, drop_threshold: 0.1 } })).body;
    await g.h.json("DELETE", `/v1/evals/${evalId}`, { headers: auth });
    expect((await g.h.json("GET", "/v1/evals/monitors", { headers: auth })).body.monitors.map((m: { id: string }) => m.id)).not.toContain(monitor.id);
    expect(g.h.ctx.db.query("SELECT count(*) AS n FROM jobs WHERE kind = 'evals.monitor' AND payload LIKE ?").get(`%${monitor.id}%`)).toEqual({ n: 0 });
  });
});

describe("monitor input, tenants and the cap", () => {
  test("bad input names the field; the hourly floor holds", async () => {
    const auth = ownAuth(g);
    const evalId = await makeEval(auth, [{ input: "x", expected: "x", assert: "contains" }], "gpt-test");
    const ok = { eval_id: evalId, interval_s: 3600, drop_threshold: 0.1 };
    const table: [Record<string, unknown>, string][] = [
      [{ ...ok, interval_s: 3599 }, "interval_s"],
      [{ ...ok, interval_s: 60 }, "interval_s"],
      [{ ...ok, interval_s: 30 * 86_400 + 1 }, "interval_s"],
      [{ ...ok, interval_s: 3600.5 }, "interval_s"],
      [{ ...ok, interval_s: "3600" }, "interval_s"],
      [{ ...ok, drop_threshold: 0 }, "drop_threshold"],
      [{ ...ok, drop_threshold: 1.01 }, "drop_threshold"],
      [{ ...ok, drop_threshold: undefined }, "drop_threshold"],
      [{ ...ok, eval_id: undefined }, "eval_id"],
      [{ ...ok, colour: "red" }, "colour"],
    ];
    for (const [body, param] of table) {
      const r = await g.h.json("POST", "/v1/evals/monitors", { headers: auth, body });
      if (r.status !== 400 || r.body.error.param !== param) throw new Error(`${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    const model = await g.h.json("POST", "/v1/evals/monitors", { headers: auth, body: { ...ok, model: "nope" } });
    expect(model.body.error).toMatchObject({ type: "model_not_found", param: "model" });
    const monitor = (await g.h.json("POST", "/v1/evals/monitors", { headers: auth, body: { ...ok, model: "model-b" } })).body;
    expect(monitor.model).toBe("model-b");
    for (const [body, param] of [[{ interval_s: 1800 }, "interval_s"], [{ enabled: "yes" }, "enabled"], [{ drop_threshold: -1 }, "drop_threshold"], [{ eval_id: "x" }, "eval_id"]] as const) {
      const r = await g.h.json("PATCH", `/v1/evals/monitors/${monitor.id}`, { headers: auth, body });
      expect({ status: r.status, param: r.body.error?.param }).toEqual({ status: 400, param });
    }
    await g.h.json("DELETE", `/v1/evals/${evalId}`, { headers: auth });
  });

  test("another account's monitor answers 404 on PATCH and DELETE, and is not listed", async () => {
    const auth = ownAuth(g);
    const evalId = await makeEval(auth, [{ input: "x", expected: "x", assert: "contains" }], "gpt-test");
    const monitor = (await g.h.json("POST", "/v1/evals/monitors", { headers: auth, body: { eval_id: evalId, interval_s: 3600, drop_threshold: 0.1 } })).body;
    const other = tenant(g);
    for (const id of [monitor.id, "emon_aaaaaaaaaaaaaaaaaaaaaaaa"]) {
      const patch = await g.h.json("PATCH", `/v1/evals/monitors/${id}`, { headers: other.auth, body: { enabled: false } });
      expect({ status: patch.status, type: patch.body.error.type }).toEqual({ status: 404, type: "not_found" });
      const del = await g.h.json("DELETE", `/v1/evals/monitors/${id}`, { headers: other.auth });
      expect({ status: del.status, type: del.body.error.type }).toEqual({ status: 404, type: "not_found" });
    }
    expect((await g.h.json("GET", "/v1/evals/monitors", { headers: other.auth })).body).toEqual({ monitors: [] });
    const mine = (await g.h.json("GET", "/v1/evals/monitors", { headers: auth })).body.monitors.find((m: { id: string }) => m.id === monitor.id);
    expect(mine.enabled).toBe(true);
    await g.h.json("DELETE", `/v1/evals/${evalId}`, { headers: auth });
  });

  test("spec §8: the 51st monitor is refused 409 monitor_limit_reached", async () => {
    const t = tenant(g);
    const e = createEval(g.h.ctx, t.accountId, { name: "capped", model: "gpt-test", cases: [{ input: "x", expected: "x", assert: "contains" }] });
    for (let i = 0; i < MAX_MONITORS_PER_ACCOUNT; i++) createMonitor(g.h.ctx, t.accountId, { eval_id: e.id, interval_s: 86_400, drop_threshold: 0.1 });
    const r = await g.h.json("POST", "/v1/evals/monitors", { headers: t.auth, body: { eval_id: e.id, interval_s: 86_400, drop_threshold: 0.1 } });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: "monitor_limit_reached", limit: MAX_MONITORS_PER_ACCOUNT });
    expect((await g.h.json("GET", "/v1/evals/monitors", { headers: t.auth })).body.monitors.length).toBe(MAX_MONITORS_PER_ACCOUNT);
  });
});
