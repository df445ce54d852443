/** POST /v1/evals/:id/run and GET /v1/evals/:id/runs: each assert kind passing and failing, billing and receipts, content-free storage, regressions, 402. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { latestEvalRuns } from "../../../src/domains/evals/index.ts";
import { balance, type Gateway } from "../inference/inference-support.ts";
import { driftCase, ownAuth, repoint, startEvalsGateway, tenant, USD } from "./evals-support.ts";

let g: Gateway;
beforeAll(async () => {
  g = await startEvalsGateway();
});
afterAll(() => g.stop());

const PERSON = { type: "object", required: ["name", "age"], properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } } };

/** Case i and whether it should pass. The stand-in says exactly what [[say …]] holds. */
const CASES: [Record<string, unknown>, boolean][] = [
  [{ input: "capital of France? [[say Paris]]", expected: "Paris", assert: "exact" }, true],
  [{ input: "capital of France? [[say Lyon]]", expected: "Paris", assert: "exact" }, false],
  [{ input: "[[say The answer is 42.]]", expected: "42", assert: "contains" }, true],
  [{ input: "[[say The answer is 41.]]", expected: "42", assert: "contains" }, false],
  [{ input: "[[say Order #12345 shipped]]", expected: "^order #\\d{5}", flags: "i", assert: "regex" }, true],
  [{ input: "[[say Order 12 shipped]]", expected: "#\\d{5}", assert: "regex" }, false],
  [{ input: '[[say {"name": "Ada", "age": 36}]]', schema: PERSON, assert: "json_schema" }, true],
  [{ input: "[[say ```json\n{\"name\": \"Bo\", \"age\": 1}\n```]]", schema: PERSON, assert: "json_schema" }, true],
  [{ input: "[[say not json at all]]", schema: PERSON, assert: "json_schema" }, false],
  [{ input: '[[say {"name": 5}]]', schema: PERSON, assert: "json_schema" }, false],
  [{ input: "capital? [[say@stub-gpt Paris]]", rubric: '[[say@stub-judge {"pass": true}]] the answer must be Paris', judge_model: "judge-test", assert: "judge" }, true],
  [{ input: "capital? [[say@stub-gpt Lyon]]", rubric: '[[say@stub-judge {"pass": false}]] the answer must be Paris', judge_model: "judge-test", assert: "judge" }, false],
  [{ input: "capital? [[say@stub-gpt Paris]]", rubric: "[[say@stub-judge maybe]] the answer must be Paris", judge_model: "judge-test", assert: "judge" }, false],
];

async function makeEval(auth: Record<string, string>, body: Record<string, unknown>) {
  const r = await g.h.json("POST", "/v1/evals", { headers: auth, body: { name: "suite", model: "gpt-test", ...body } });
  if (r.status !== 201) throw new Error(`create failed ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { id: string };
}

describe("POST /v1/evals/:id/run", () => {
  test("grades each assert kind, bills every call on the account's credit with a receipt, stores no output", async () => {
    const auth = ownAuth(g);
    const made = await makeEval(auth, { cases: CASES.map(([c]) => c), threshold: 0.5 });
    const before = balance(g).balance_micro_usd;
    const r = await g.h.json("POST", `/v1/evals/${made.id}/run`, { headers: auth, body: {} });
    expect(r.status).toBe(201);
    const run = r.body;
    expect(run.id).toMatch(/^erun_/);
    expect(run.results.map((x: { passed: boolean }) => x.passed)).toEqual(CASES.map(([, pass]) => pass));
    const passes = CASES.filter(([, pass]) => pass).length;
    expect(run).toMatchObject({ eval_id: made.id, model: "gpt-test", status: "completed", source: "manual", monitor_id: null, error: null, passed: passes, total: CASES.length, threshold: 0.5, regression: false, previous_run_id: null, previous_pass_rate: null });
    expect(run.pass_rate).toBeCloseTo(passes / CASES.length, 12);
    expect(run.passed_threshold).toBe(passes / CASES.length >= 0.5);
    // Reasons are fixed phrases; outputs come back this once.
    expect(run.results[3].reason).toBe("output does not contain the expected text");
    expect(run.results[8].reason).toBe("output is not JSON");
    expect(run.results[9].reason).toBe("output does not match the schema (required)");
    expect(run.results[11].reason).toBe("the judge failed the output");
    expect(run.results[12].reason).toBe('the judge did not answer {"pass": true|false}');
    expect(run.results[0].output).toBe("Paris");
    expect(run.results[0].output_sha256).toBe(new Bun.CryptoHasher("sha256").update("Paris").digest("hex"));
    for (const x of run.results) expect(Number.isInteger(x.latency_ms) && x.latency_ms >= 0).toBe(true);

    // Billing: one receipt per call (13 cases + 3 judge calls), the credit falls by exactly their sum.
    const judged = run.results.filter((x: { judge_receipt_id: string | null }) => x.judge_receipt_id);
    expect(judged.length).toBe(3);
    expect(run.receipt_ids.length).toBe(CASES.length + 3);
    expect(new Set(run.receipt_ids).size).toBe(run.receipt_ids.length);
    const sum = run.results.reduce((s: number, x: { cost_micro_usd: number }) => s + x.cost_micro_usd, 0);
    expect(run.cost_micro_usd).toBe(sum);
    expect(sum).toBeGreaterThan(0);
    expect(before - balance(g).balance_micro_usd).toBe(sum);
    const events = g.h.ctx.db
      .query<{ cost_micro_usd: number; key_id: string | null }, [string]>("SELECT u.cost_micro_usd, u.key_id FROM usage_events u JOIN receipts r ON r.usage_event_id = u.id WHERE r.id IN (SELECT value FROM json_each(?))")
      .all(JSON.stringify(run.receipt_ids));
    expect(events.length).toBe(run.receipt_ids.length);
    expect(events.reduce((s, e) => s + e.cost_micro_usd, 0)).toBe(sum);
    expect(events.every((e) => e.key_id === null)).toBe(true);

    // The judge was asked for JSON, on its own model.
    const judgeCalls = g.stub.requests.filter((q) => q.path === "/v1/chat/completions" && q.body?.model === "stub-judge");
    expect(judgeCalls.length).toBeGreaterThanOrEqual(3);
    expect(judgeCalls.every((q) => q.body.response_format?.type === "json_object")).toBe(true);

    // Stored: no output text, no case text.
    const stored = await g.h.json("GET", `/v1/evals/${made.id}/runs`, { headers: auth });
    expect(stored.status).toBe(200);
    expect(Object.keys(stored.body)).toEqual(["runs"]);
    const { results: withOutputs, ...rest } = run;
    expect(stored.body.runs).toEqual([{ ...rest, results: withOutputs.map(({ output: _o, ...x }: { output: string }) => x) }]);
    const raw = JSON.stringify(g.h.ctx.db.query("SELECT * FROM eval_runs WHERE id = ?").get(run.id));
    for (const text of ["Paris", "Lyon", "The answer", "Ada", "not json"]) expect(raw).not.toContain(text);

    // The eval's list entry shows its latest run.
    const list = await g.h.json("GET", "/v1/evals", { headers: auth });
    expect(list.body.evals.find((e: { id: string }) => e.id === made.id).latest_run).toMatchObject({ id: run.id, status: "completed", passed: passes, total: CASES.length });
  });

  test("a body-less POST runs the eval's own model; a model override runs another and is no regression of the first", async () => {
    const auth = ownAuth(g);
    const made = await makeEval(auth, { model: "drifty", cases: [driftCase(1), driftCase(2)] });
    const first = await g.h.json("POST", `/v1/evals/${made.id}/run`, { headers: auth });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ model: "drifty", pass_rate: 1, passed_threshold: true, regression: false });

    // model-b's upstream has no scripted answer: it fails every case, but it has no earlier run to regress from.
    const other = await g.h.json("POST", `/v1/evals/${made.id}/run`, { headers: auth, body: { model: "model-b" } });
    expect(other.body).toMatchObject({ model: "model-b", pass_rate: 0, passed: 0, passed_threshold: false, regression: false, previous_run_id: null, previous_pass_rate: null });

    // The same model answering worse (its upstream changed): a regression against its own previous run.
    repoint(g, "drifty", "stub-bad");
    const worse = await g.h.json("POST", `/v1/evals/${made.id}/run`, { headers: auth, body: {} });
    expect(worse.body).toMatchObject({ model: "drifty", pass_rate: 0, regression: true, previous_run_id: first.body.id, previous_pass_rate: 1 });
    // Not worse again: no regression.
    const again = await g.h.json("POST", `/v1/evals/${made.id}/run`, { headers: auth, body: {} });
    expect(again.body).toMatchObject({ pass_rate: 0, regression: false, previous_run_id: worse.body.id, previous_pass_rate: 0 });
    repoint(g, "drifty", "stub-good");

    const runs = await g.h.json("GET", `/v1/evals/${made.id}/runs?limit=2`, { headers: auth });
    expect(runs.body.runs.map((r: { id: string }) => r.id)).toEqual([again.body.id, worse.body.id]);

    // The front door autopilot reads: the latest completed run per (eval, model), newest first.
    const latest = latestEvalRuns(g.h.ctx, g.accountId).filter((s) => s.eval_id === made.id);
    expect(latest).toEqual([
      { eval_id: made.id, eval_name: "suite", model: "drifty", run_id: again.body.id, pass_rate: 0, passed: 0, total: 2, threshold: 1, passed_threshold: false, regression: false, created_at: Date.parse(again.body.created_at) },
      { eval_id: made.id, eval_name: "suite", model: "model-b", run_id: other.body.id, pass_rate: 0, passed: 0, total: 2, threshold: 1, passed_threshold: false, regression: false, created_at: Date.parse(other.body.created_at) },
    ]);
  });

  test("an account without credit gets 402 and pays nothing; the failed run is kept", async () => {
    const broke = tenant(g, 0);
    const made = await makeEval(broke.auth, { cases: [{ input: "hi [[say hi]]", expected: "hi", assert: "exact" }] });
    const r = await g.h.json("POST", `/v1/evals/${made.id}/run`, { headers: broke.auth, body: {} });
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ type: "insufficient_credit", spent_micro_usd: 0 });
    expect(r.body.error.eval_run_id).toMatch(/^erun_/);
    expect(g.h.ctx.ledger.balance(broke.accountId).balance_micro_usd).toBe(0);
    const runs = await g.h.json("GET", `/v1/evals/${made.id}/runs`, { headers: broke.auth });
    expect(runs.body.runs).toMatchObject([{ id: r.body.error.eval_run_id, status: "failed", error: { type: "insufficient_credit" }, passed: null, pass_rate: null, cost_micro_usd: 0, receipt_ids: [] }]);
    // A failed run is no one's baseline: latestEvalRuns skips it.
    expect(latestEvalRuns(g.h.ctx, broke.accountId)).toEqual([]);
  });

  test("a model that fails mid-run fails the run; what was spent stays billed", async () => {
    const t = tenant(g, 10 * USD);
    const made = await makeEval(t.auth, { cases: [{ input: "[[say fine]]", expected: "fine", assert: "exact" }, { input: "hi", assert: "judge", rubric: "r", judge_model: "gpt-fail" }] });
    const r = await g.h.json("POST", `/v1/evals/${made.id}/run`, { headers: t.auth, body: {} });
    expect(r.status).toBeGreaterThanOrEqual(500);
    const spent = 10 * USD - g.h.ctx.ledger.balance(t.accountId).balance_micro_usd;
    expect(spent).toBeGreaterThan(0);
    expect(r.body.error.spent_micro_usd).toBe(spent);
    const runs = await g.h.json("GET", `/v1/evals/${made.id}/runs`, { headers: t.auth });
    expect(runs.body.runs[0]).toMatchObject({ status: "failed", cost_micro_usd: spent, pass_rate: null });
    expect(runs.body.runs[0].receipt_ids.length).toBe(2); // both cases' own calls; the judge call failed unbilled
  });

  test("an unknown override model is 404 model_not_found and runs nothing", async () => {
    const made = await makeEval(ownAuth(g), { cases: [{ input: "x", expected: "x", assert: "contains" }] });
    const r = await g.h.json("POST", `/v1/evals/${made.id}/run`, { headers: ownAuth(g), body: { model: "nope" } });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ type: "model_not_found", param: "model" });
    expect((await g.h.json("GET", `/v1/evals/${made.id}/runs`, { headers: ownAuth(g) })).body.runs).toEqual([]);
    expect((await g.h.json("POST", `/v1/evals/${made.id}/run`, { headers: ownAuth(g), body: { colour: 1 } })).body.error.param).toBe("colour");
  });

  test("?limit= is 1 to 200", async () => {
    const made = await makeEval(ownAuth(g), { cases: [{ input: "x", expected: "x", assert: "contains" }] });
    for (const bad of ["0", "abc", "-1"]) {
      const r = await g.h.json("GET", `/v1/evals/${made.id}/runs?limit=${bad}`, { headers: ownAuth(g) });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe("query.limit");
    }
    expect((await g.h.json("GET", `/v1/evals/${made.id}/runs?limit=5000`, { headers: ownAuth(g) })).status).toBe(200);
  });

  test("deleting an eval deletes its runs", async () => {
    const made = await makeEval(ownAuth(g), { cases: [{ input: "x", expected: "x", assert: "contains" }] });
    await g.h.json("POST", `/v1/evals/${made.id}/run`, { headers: ownAuth(g), body: {} });
    await g.h.json("DELETE", `/v1/evals/${made.id}`, { headers: ownAuth(g) });
    expect(g.h.ctx.db.query("SELECT count(*) AS n FROM eval_runs WHERE eval_id = ?").get(made.id)).toEqual({ n: 0 });
    expect((await g.h.json("GET", `/v1/evals/${made.id}/runs`, { headers: ownAuth(g) })).status).toBe(404);
  });
});
