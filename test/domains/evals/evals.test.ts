/** /v1/evals through HTTP: create (checked, sealed), list, delete; bad input by field; tenants; the monitors literal; the 200-eval cap. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEval } from "../../../src/domains/evals/evals.ts";
import { MAX_EVALS_PER_ACCOUNT } from "../../../src/domains/evals/limits.ts";
import type { Gateway } from "../inference/inference-support.ts";
import { ownAuth, startEvalsGateway, tenant } from "./evals-support.ts";

let g: Gateway;
beforeAll(async () => {
  g = await startEvalsGateway();
});
afterAll(() => g.stop());

const SECRET = "the capital of Freedonia is Fredville";
const body = (over: Record<string, unknown> = {}) => ({
  name: "geography",
  model: "gpt-test",
  cases: [
    { input: `${SECRET}? [[say Fredville]]`, expected: "Fredville", assert: "exact" },
    { input: "order? [[say order #12345 shipped]]", expected: "#\\d{5}", assert: "regex", flags: "i" },
    { input: "json please", assert: "json_schema", schema: { type: "object", required: ["reply"] } },
    { input: "grade me", assert: "judge", rubric: "must be polite", judge_model: "judge-test" },
  ],
  ...over,
});

describe("POST, GET and DELETE /v1/evals", () => {
  test("creates an eval with sealed cases, lists it without them, deletes it", async () => {
    const auth = ownAuth(g);
    const made = await g.h.json("POST", "/v1/evals", { headers: auth, body: body({ threshold: 0.75 }) });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: "geography", model: "gpt-test", threshold: 0.75, case_count: 4, asserts: { exact: 1, regex: 1, json_schema: 1, judge: 1 }, latest_run: null });
    expect(made.body.id).toMatch(/^eval_/);
    expect(JSON.stringify(made.body)).not.toContain("Freedonia");

    // Sealed at rest: the case text is nowhere in the row.
    const raw = g.h.ctx.db.query<{ cases: string }, [string]>("SELECT cases FROM evals WHERE id = ?").get(made.body.id)!;
    expect(raw.cases.startsWith("v1.")).toBe(true);
    expect(JSON.stringify(raw)).not.toContain("Freedonia");

    const list = await g.h.json("GET", "/v1/evals", { headers: auth });
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(["evals"]);
    expect(list.body.evals.map((e: { id: string }) => e.id)).toContain(made.body.id);
    expect(list.body.evals.find((e: { id: string }) => e.id === made.body.id)).toEqual(made.body);
    expect(JSON.stringify(list.body)).not.toContain("Freedonia");

    const gone = await g.h.json("DELETE", `/v1/evals/${made.body.id}`, { headers: auth });
    expect(gone).toMatchObject({ status: 200, body: { id: made.body.id, deleted: true } });
    expect((await g.h.json("DELETE", `/v1/evals/${made.body.id}`, { headers: auth })).status).toBe(404);
    const after = await g.h.json("GET", "/v1/evals", { headers: auth });
    expect(after.body.evals.map((e: { id: string }) => e.id)).not.toContain(made.body.id);
  });

  test("the threshold defaults to 1", async () => {
    const made = await g.h.json("POST", "/v1/evals", { headers: ownAuth(g), body: body() });
    expect(made.body.threshold).toBe(1);
    await g.h.json("DELETE", `/v1/evals/${made.body.id}`, { headers: ownAuth(g) });
  });

  test("bad input names the field", async () => {
    const c = (over: Record<string, unknown>) => ({ input: "hi", assert: "contains", expected: "x", ...over });
    const table: [string, Record<string, unknown>, string][] = [
      ["empty name", body({ name: "" }), "name"],
      ["whitespace name", body({ name: "   " }), "name"],
      ["name too long", body({ name: "n".repeat(101) }), "name"],
      ["no model", { name: "x", cases: [c({})] }, "model"],
      ["no cases", body({ cases: [] }), "cases"],
      ["too many cases", body({ cases: Array.from({ length: 101 }, () => c({})) }), "cases"],
      ["unknown assert", body({ cases: [c({ assert: "fuzzy" })] }), "cases.0.assert"],
      ["empty input", body({ cases: [c({ input: "" })] }), "cases.0.input"],
      ["input too long", body({ cases: [c({ input: "x".repeat(20_001) })] }), "cases.0.input"],
      ["contains without expected", body({ cases: [c({}), c({}), c({}), c({ expected: undefined })] }), "cases.3.expected"],
      ["exact without expected", body({ cases: [{ input: "hi", assert: "exact" }] }), "cases.0.expected"],
      ["schema on exact", body({ cases: [c({ assert: "exact", schema: { type: "object" } })] }), "cases.0.schema"],
      ["rubric on contains", body({ cases: [c({ rubric: "be nice" })] }), "cases.0.rubric"],
      ["flags on contains", body({ cases: [c({ flags: "i" })] }), "cases.0.flags"],
      ["invalid regex", body({ cases: [c({ assert: "regex", expected: "(unclosed" })] }), "cases.0.expected"],
      ["backtracking regex", body({ cases: [c({ assert: "regex", expected: "^(a+)+$" })] }), "cases.0.expected"],
      ["unknown regex flag", body({ cases: [c({ assert: "regex", expected: "a", flags: "g" })] }), "cases.0.flags"],
      ["repeated regex flag", body({ cases: [c({ assert: "regex", expected: "a", flags: "ii" })] }), "cases.0.flags"],
      ["json_schema without schema", body({ cases: [{ input: "hi", assert: "json_schema" }] }), "cases.0.schema"],
      ["invalid schema", body({ cases: [{ input: "hi", assert: "json_schema", schema: { type: "objekt" } }] }), "cases.0.schema"],
      ["schema with an unknown keyword", body({ cases: [{ input: "hi", assert: "json_schema", schema: { type: "object", requird: ["a"] } }] }), "cases.0.schema"],
      ["schema with a remote $ref", body({ cases: [{ input: "hi", assert: "json_schema", schema: { $ref: "https://example.com/s.json" } }] }), "cases.0.schema"],
      ["schema not an object", body({ cases: [{ input: "hi", assert: "json_schema", schema: [1] }] }), "cases.0.schema"],
      ["judge without rubric", body({ cases: [{ input: "hi", assert: "judge" }] }), "cases.0.rubric"],
      ["threshold above 1", body({ threshold: 1.5 }), "threshold"],
      ["threshold below 0", body({ threshold: -0.1 }), "threshold"],
      ["unknown field", body({ colour: "red" }), "colour"],
      ["unknown case field", body({ cases: [c({ weight: 2 })] }), "cases.0.weight"],
    ];
    for (const [what, input, param] of table) {
      const r = await g.h.json("POST", "/v1/evals", { headers: ownAuth(g), body: input });
      if (r.status !== 400 || r.body.error.param !== param) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    // Every faulty case is named, not only the first.
    const many = await g.h.json("POST", "/v1/evals", { headers: ownAuth(g), body: body({ cases: [c({ expected: undefined }), c({}), { input: "hi", assert: "judge" }] }) });
    expect(many.body.error.errors.map((e: { param: string }) => e.param)).toEqual(["cases.0.expected", "cases.2.rubric"]);
    expect(many.body.error.message).toBe("cases.0.expected: is required for assert contains");
  });

  test("an unknown model or judge model is the inference area's 404 model_not_found, naming the field", async () => {
    const model = await g.h.json("POST", "/v1/evals", { headers: ownAuth(g), body: body({ model: "no-such-model" }) });
    expect(model.status).toBe(404);
    expect(model.body.error).toMatchObject({ type: "model_not_found", param: "model" });
    const judge = await g.h.json("POST", "/v1/evals", { headers: ownAuth(g), body: body({ cases: [{ input: "hi", assert: "judge", rubric: "r", judge_model: "nope" }] }) });
    expect(judge.status).toBe(404);
    expect(judge.body.error).toMatchObject({ type: "model_not_found", param: "cases.0.judge_model" });
    // An embedding model is not a chat model.
    const embed = await g.h.json("POST", "/v1/evals", { headers: ownAuth(g), body: body({ model: "embed-test" }) });
    expect(embed.status).toBe(400);
    expect(embed.body.error.param).toBe("model");
  });

  test("another account's eval answers 404 on every route, like an unknown id", async () => {
    const mine = await g.h.json("POST", "/v1/evals", { headers: ownAuth(g), body: body() });
    const other = tenant(g);
    const routes: [string, (id: string) => string, ((id: string) => unknown)?][] = [
      ["DELETE", (id) => `/v1/evals/${id}`],
      ["POST", (id) => `/v1/evals/${id}/run`, () => ({})],
      ["GET", (id) => `/v1/evals/${id}/runs`],
      ["POST", () => "/v1/evals/monitors", (id) => ({ eval_id: id, interval_s: 3600, drop_threshold: 0.1 })],
    ];
    for (const [method, path, b] of routes) {
      for (const id of [mine.body.id, "eval_aaaaaaaaaaaaaaaaaaaaaaaa"]) {
        const r = await g.h.json(method, path(id), { headers: other.auth, body: b?.(id) });
        expect({ method, id, status: r.status, type: r.body.error?.type }).toEqual({ method, id, status: 404, type: "not_found" });
      }
    }
    expect((await g.h.json("GET", "/v1/evals", { headers: other.auth })).body).toEqual({ evals: [] });
    // Still there for its owner.
    expect((await g.h.json("GET", `/v1/evals/${mine.body.id}/runs`, { headers: ownAuth(g) })).status).toBe(200);
    await g.h.json("DELETE", `/v1/evals/${mine.body.id}`, { headers: ownAuth(g) });
  });

  test("a session is required", async () => {
    expect((await g.h.json("GET", "/v1/evals")).status).toBe(401);
    expect((await g.h.json("GET", "/v1/evals", { headers: { authorization: `Bearer ${g.key}` } })).status).toBe(401);
  });
});

describe("spec §9.3: /v1/evals/monitors is a literal, never an eval id", () => {
  test("each method on the literal reaches the monitors or an unknown eval, never an eval's data", async () => {
    const auth = ownAuth(g);
    const list = await g.h.json("GET", "/v1/evals/monitors", { headers: auth });
    expect(list.status).toBe(200);
    expect(Object.keys(list.body)).toEqual(["monitors"]);
    expect((await g.h.json("DELETE", "/v1/evals/monitors", { headers: auth })).status).toBe(404);
    expect((await g.h.json("POST", "/v1/evals/monitors/run", { headers: auth, body: {} })).status).toBe(404);
    expect((await g.h.json("GET", "/v1/evals/monitors/runs", { headers: auth })).status).toBe(404);
    // A monitor body posted to the literal creates a monitor (or names its fields), never runs an eval.
    const r = await g.h.json("POST", "/v1/evals/monitors", { headers: auth, body: {} });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("eval_id");
  });
});

describe("spec §8: 200 evals per account", () => {
  test("the 201st is refused 409 eval_limit_reached; deleting one makes room", async () => {
    const t = tenant(g);
    const oneCase = [{ input: "hi", assert: "contains" as const, expected: "hi" }];
    for (let i = 0; i < MAX_EVALS_PER_ACCOUNT; i++) createEval(g.h.ctx, t.accountId, { name: `e${i}`, model: "gpt-test", cases: oneCase });
    const list = await g.h.json("GET", "/v1/evals", { headers: t.auth });
    expect(list.body.evals.length).toBe(MAX_EVALS_PER_ACCOUNT);
    const refused = await g.h.json("POST", "/v1/evals", { headers: t.auth, body: { name: "one more", model: "gpt-test", cases: oneCase } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: "eval_limit_reached", limit: MAX_EVALS_PER_ACCOUNT });
    await g.h.json("DELETE", `/v1/evals/${list.body.evals[0].id}`, { headers: t.auth });
    expect((await g.h.json("POST", "/v1/evals", { headers: t.auth, body: { name: "one more", model: "gpt-test", cases: oneCase } })).status).toBe(201);
  });
});
