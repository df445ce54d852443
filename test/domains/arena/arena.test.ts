/**
 * The arena end to end: `svc arena suites add|list` and `svc arena run` on the data dir of a
 * running gateway (the stand-in upstream behind its models), the public GET /v1/arena/* routes,
 * the leaderboard's order and methodology versions, every case call metered with a receipt that
 * verifies with viem, the run's signed statement, failed runs, 404s and bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runSuite } from "../../../src/domains/arena/runs.ts";
import { createAccount } from "../../../src/domains/accounts/service.ts";
import { balance, type Gateway, verifyReceipt } from "../inference/inference-support.ts";
import { CASES, canonical, sha256, startArenaGateway, suiteFile, svc, writeSuite } from "./arena-support.ts";

let g: Gateway;
let loc: string[];
beforeAll(async () => {
  g = await startArenaGateway();
  loc = ["--data-dir", g.h.dir];
});
afterAll(() => g.stop());

const runs: Record<string, any> = {};

describe("suites", () => {
  test("svc arena suites add: a version is added once, the same file again is no change, other cases under it are refused", async () => {
    const path = writeSuite(suiteFile());
    const added = await svc("arena", "suites", "add", "--file", path, "--json", ...loc);
    expect(added.code).toBe(0);
    const suite = JSON.parse(added.out);
    expect(suite).toMatchObject({
      added: true,
      slug: "basics",
      name: "Basics",
      description: "three small questions",
      methodology_version: "1",
      current_version: "1",
      versions: ["1"],
      case_count: 3,
      asserts: { exact: 1, contains: 1, judge: 1 },
      judge_model: "judge-a",
      completed_runs: 0,
    });
    // The fingerprint of the cases, recomputed with the test's own canonical JSON.
    expect(suite.cases_sha256).toBe(sha256(canonical(CASES)));

    const again = await svc("arena", "suites", "add", "--file", path, ...loc);
    expect(again.code).toBe(0);
    expect(again.out).toContain("no change");

    const changed = await svc("arena", "suites", "add", "--file", writeSuite(suiteFile({ cases: CASES.slice(0, 2) })), ...loc);
    expect(changed.code).toBe(1);
    expect(changed.err).toContain("new methodology_version");
    const renamed = await svc("arena", "suites", "add", "--file", writeSuite(suiteFile({ name: "Basics, renamed" })), ...loc);
    expect(renamed.code).toBe(1);

    const listed = await svc("arena", "suites", "list", "--json", ...loc);
    expect(JSON.parse(listed.out).suites.map((s: any) => `${s.slug}@${s.methodology_version}`)).toEqual(["basics@1"]);
    expect((await svc("arena", "suites", "list", ...loc)).out).toContain("basics  v1  3 cases  0 completed run(s)");
  });

  test("GET /v1/arena/suites and /suites/:slug: read-only, the cases only when published", async () => {
    const list = await g.h.json("GET", "/v1/arena/suites");
    expect(list.status).toBe(200);
    expect(list.body.suites).toHaveLength(1);
    expect(list.body.suites[0]).toMatchObject({ slug: "basics", methodology_version: "1", case_count: 3 });
    expect(JSON.stringify(list.body)).not.toContain("Paris");

    const one = await g.h.json("GET", "/v1/arena/suites/basics");
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ slug: "basics", methodology_version: "1", cases: null });

    const open = suiteFile({ slug: "open-book", name: "Open book", publish_cases: true, description: undefined });
    expect((await svc("arena", "suites", "add", "--file", writeSuite(open), ...loc)).code).toBe(0);
    const published = await g.h.json("GET", "/v1/arena/suites/open-book");
    expect(published.status).toBe(200);
    expect(published.body.description).toBeNull();
    expect(published.body.cases).toEqual(CASES);
    // Anyone holding the published cases recomputes the fingerprint.
    expect(sha256(canonical(published.body.cases))).toBe(published.body.cases_sha256);

    // Read-only over HTTP.
    expect((await g.h.request("POST", "/v1/arena/suites", { body: suiteFile() })).status).toBe(405);
  });
});

describe("runs", () => {
  test("svc arena run: every case call metered on the account's credit, the run stored with the methodology version and pass rate", async () => {
    const before = balance(g).balance_micro_usd;
    const r = await svc("arena", "run", "--suite", "basics", "--model", "strong", "--account", g.accountId, "--json", ...loc);
    expect(r.code).toBe(0);
    const run = JSON.parse(r.out);
    runs.strong = run;
    expect(run.id).toMatch(/^arun_/);
    expect(run).toMatchObject({ suite: "basics", methodology_version: "1", model: "strong", status: "completed", error: null, passed: 3, total: 3, pass_rate: 1 });
    expect(run.results.map((x: any) => x.passed)).toEqual([true, true, true]);
    expect(run.results[0].output_sha256).toBe(sha256("Paris"));
    // 3 case calls and the judge call, each receipted; the credit fell by exactly their cost.
    expect(run.receipts).toHaveLength(4);
    expect(run.results[2].judge_receipt_id).toMatch(/^rcpt_/);
    expect(run.cost_micro_usd).toBeGreaterThan(0);
    expect(before - balance(g).balance_micro_usd).toBe(run.cost_micro_usd);
    // Content-free: the answers' text is nowhere in the record.
    expect(JSON.stringify(run.results)).not.toContain("Paris");

    const text = await svc("arena", "run", "--suite", "basics", "--model", "weak", "--account", g.accountId, ...loc);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^arun_\S+ {2}basics v1 {2}weak {2}2\/3 passed/);
    runs.weak = text.out.split(" ")[0];
  });

  test("GET /v1/arena/runs/:id: the run's statement and each call's receipt verify with viem and agree with the run", async () => {
    const r = await g.h.json("GET", `/v1/arena/runs/${runs.strong.id}`);
    expect(r.status).toBe(200);
    const run = r.body;
    expect(run).toMatchObject({ id: runs.strong.id, methodology_version: "1", passed: 3, total: 3, pass_rate: 1 });
    let sum = 0;
    for (const rc of run.receipts) {
      const payload = await verifyReceipt(g, rc.receipt, rc.signature);
      expect(payload.id).toBe(rc.receipt_id);
      expect(payload.run_id).toBe(run.id);
      expect(payload.account).toBe(g.accountId);
      expect(payload.key_id).toBeNull();
      sum += payload.cost_micro_usd;
    }
    expect(sum).toBe(run.cost_micro_usd);
    const caseReceipts = run.results.flatMap((x: any) => [x.receipt_id, x.judge_receipt_id].filter(Boolean));
    expect(run.receipts.map((x: any) => x.receipt_id).sort()).toEqual(caseReceipts.sort());

    const statement = await verifyReceipt(g, run.statement.statement, run.statement.signature);
    expect(statement).toMatchObject({
      v: 1,
      type: "arena-run",
      id: run.id,
      suite: "basics",
      methodology_version: "1",
      cases_sha256: sha256(canonical(CASES)),
      model: "strong",
      status: "completed",
      error_type: null,
      passed: 3,
      total: 3,
      cost_micro_usd: run.cost_micro_usd,
    });
    expect([...statement.receipt_ids].sort()).toEqual(run.receipts.map((x: any) => x.receipt_id).sort());
    expect(statement.results_sha256).toBe(sha256(canonical(run.results)));
  });

  test("a receipt the paying account chains into the run's id by hand is not one of the run's", async () => {
    const res = await g.post("/v1/chat/completions", { model: "gpt-test", messages: [{ role: "user", content: "hello" }], svc_run_id: runs.strong.id });
    expect(res.status).toBe(200);
    const r = await g.h.json("GET", `/v1/arena/runs/${runs.strong.id}`);
    expect(r.body.receipts).toHaveLength(4);
  });

  test("a run that cannot pay is stored as failed, exits 1 and never ranks", async () => {
    const poor = createAccount(g.h.ctx);
    const r = await svc("arena", "run", "--suite", "basics", "--model", "strong", "--account", poor.id, ...loc);
    expect(r.code).toBe(1);
    expect(r.out).toContain("FAILED (insufficient_credit");
    const id = r.out.split(" ")[0]!;
    const run = await g.h.json("GET", `/v1/arena/runs/${id}`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: "failed", passed: null, pass_rate: null, cost_micro_usd: 0, receipts: [], results: [] });
    expect(run.body.error.type).toBe("insufficient_credit");
    const statement = await verifyReceipt(g, run.body.statement.statement, run.body.statement.signature);
    expect(statement).toMatchObject({ status: "failed", error_type: "insufficient_credit", passed: null });
  });
});

describe("leaderboard", () => {
  test("ranked by pass rate per methodology version; equal rates share a rank; a model's newest run counts", async () => {
    for (const model of ["gpt-test", "claude-test"]) {
      const run = await runSuite(g.h.ctx, { suite: "basics", model, accountId: g.accountId });
      expect(run).toMatchObject({ status: "completed", passed: 1, total: 3 });
    }
    const r = await g.h.json("GET", "/v1/arena/leaderboard");
    expect(r.status).toBe(200);
    expect(r.body.ordered_by).toContain("pass_rate desc");
    const basics = r.body.leaderboards.find((b: any) => b.suite === "basics");
    expect(basics).toMatchObject({ name: "Basics", methodology_version: "1", case_count: 3, cases_sha256: sha256(canonical(CASES)) });
    expect(basics.entries.map((e: any) => [e.rank, e.model, e.passed])).toEqual([
      [1, "strong", 3],
      [2, "weak", 2],
      ...basics.entries.slice(2).map((e: any) => [3, e.model, 1]),
    ]);
    expect(basics.entries.slice(2).map((e: any) => e.model).sort()).toEqual(["claude-test", "gpt-test"]);
    const [a, b] = basics.entries.slice(2);
    expect(a.cost_micro_usd < b.cost_micro_usd || (a.cost_micro_usd === b.cost_micro_usd && a.model < b.model)).toBe(true);
    expect(basics.entries[0]).toMatchObject({ run_id: runs.strong.id, pass_rate: 1 });
    expect(basics.entries[1].pass_rate).toBeCloseTo(2 / 3, 12);
    // open-book has no runs yet: an empty board.
    expect(r.body.leaderboards.find((x: any) => x.suite === "open-book").entries).toEqual([]);

    // The newest run of a model counts, not its best.
    const again = await runSuite(g.h.ctx, { suite: "basics", model: "weak", accountId: g.accountId });
    const one = await g.h.json("GET", "/v1/arena/leaderboard?suite=basics");
    expect(one.body.leaderboards).toHaveLength(1);
    expect(one.body.leaderboards[0].entries[1]).toMatchObject({ model: "weak", run_id: again.id });
    expect((await g.h.json("GET", "/v1/arena/suites/basics")).body.completed_runs).toBe(5);
  });

  test("a new methodology version becomes current with its own board; the old one stays readable", async () => {
    const v2 = suiteFile({ methodology_version: "2", cases: CASES.slice(0, 1) });
    const added = await svc("arena", "suites", "add", "--file", writeSuite(v2), "--json", ...loc);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.out)).toMatchObject({ methodology_version: "2", current_version: "2", versions: ["1", "2"] });

    const current = await g.h.json("GET", "/v1/arena/leaderboard?suite=basics");
    expect(current.body.leaderboards[0]).toMatchObject({ methodology_version: "2", case_count: 1, entries: [] });
    const old = await g.h.json("GET", "/v1/arena/leaderboard?suite=basics&version=1");
    expect(old.body.leaderboards[0].methodology_version).toBe("1");
    expect(old.body.leaderboards[0].entries).toHaveLength(4);
    expect((await g.h.json("GET", "/v1/arena/suites/basics")).body).toMatchObject({ methodology_version: "2", versions: ["1", "2"] });
    expect((await g.h.json("GET", "/v1/arena/suites/basics?version=1")).body).toMatchObject({ methodology_version: "1", current_version: "2", completed_runs: 5 });

    const run = await svc("arena", "run", "--suite", "basics", "--model", "weak", "--account", g.accountId, "--json", ...loc);
    expect(JSON.parse(run.out)).toMatchObject({ methodology_version: "2", passed: 0, total: 1 });
    const pinned = await svc("arena", "run", "--suite", "basics", "--version", "1", "--model", "strong", "--account", g.accountId, "--json", ...loc);
    expect(JSON.parse(pinned.out)).toMatchObject({ methodology_version: "1", passed: 3 });
    const board = await g.h.json("GET", "/v1/arena/leaderboard?suite=basics");
    expect(board.body.leaderboards[0].entries.map((e: any) => `${e.rank} ${e.model} ${e.passed}/${e.total}`)).toEqual(["1 weak 0/1"]);
  });
});

describe("unknown records and bad input", () => {
  test.each([
    ["/v1/arena/suites/nope", "suite not found"],
    ["/v1/arena/suites/basics?version=9", "suite version not found"],
    ["/v1/arena/runs/arun_nope", "run not found"],
    ["/v1/arena/leaderboard?suite=nope", "suite not found"],
    ["/v1/arena/leaderboard?suite=basics&version=9", "suite version not found"],
  ])("GET %s answers 404", async (path, message) => {
    const r = await g.h.json("GET", path);
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ type: "not_found", message });
  });

  test("a version without its suite is refused, naming the parameter", async () => {
    const r = await g.h.json("GET", "/v1/arena/leaderboard?version=1");
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe("query.version");
  });

  const judgeless = CASES.map((c) => ({ ...c }));
  test.each([
    ["no --file", [], 2, "--file PATH is required"],
    ["a missing file", ["--file", "/nonexistent/suite.json"], 2, "cannot read"],
    ["not JSON", ["--file", "JSON:{nope"], 2, "is not JSON"],
    ["an unknown field", ["--file", { ...suiteFile(), extra: 1 }], 2, "extra"],
    ["a bad slug", ["--file", suiteFile({ slug: "Bad Slug" })], 2, "slug: must be 1-63 lowercase"],
    ["a bad version", ["--file", suiteFile({ methodology_version: "v 1" })], 2, "methodology_version: must be"],
    ["no cases", ["--file", suiteFile({ cases: [] })], 2, "cases: must hold 1 to 100 cases"],
    ["a case's unknown field", ["--file", suiteFile({ cases: [{ ...CASES[0], colour: "red" }] })], 2, "cases.0.colour"],
    ["a field its assert does not take", ["--file", suiteFile({ cases: [{ ...CASES[0], rubric: "x" }] })], 2, "cases.0.rubric: does not apply to assert exact"],
    ["a dangerous regex", ["--file", suiteFile({ cases: [{ input: "x", expected: "(a+)+", assert: "regex" }] })], 2, "cases.0.expected"],
    ["a fraction in a case's schema", ["--file", suiteFile({ cases: [{ input: "x", schema: { type: "number", maximum: 0.5 }, assert: "json_schema" }] })], 2, "cases.0.schema.maximum: is not a whole number"],
    ["a judge case with no judge", ["--file", suiteFile({ judge_model: undefined, cases: judgeless })], 2, "cases.2.judge_model: a judge case needs"],
    ["an unknown judge model", ["--file", suiteFile({ judge_model: "nope" })], 1, "nope"],
  ] as [string, (string | object)[], number, string][])("svc arena suites add with %s", async (_label, args, code, message) => {
    const argv = args.map((a) => (typeof a === "string" && a.startsWith("JSON:") ? writeSuite(a.slice(5)) : typeof a === "string" ? a : writeSuite(a)));
    const r = await svc("arena", "suites", "add", ...argv, ...loc);
    expect(r.code).toBe(code);
    expect(r.err).toContain(message);
  });

  test.each([
    ["no --suite", ["--model", "strong", "--account", "ACCOUNT"], 2, "--suite SLUG is required"],
    ["no --model", ["--suite", "basics", "--account", "ACCOUNT"], 2, "--model MODEL is required"],
    ["no --account", ["--suite", "basics", "--model", "strong"], 2, "--account ACCOUNT_ID is required"],
    ["an unknown suite", ["--suite", "nope", "--model", "strong", "--account", "ACCOUNT"], 1, "suite not found"],
    ["an unknown version", ["--suite", "basics", "--version", "9", "--model", "strong", "--account", "ACCOUNT"], 1, "suite version not found"],
    ["an unknown model", ["--suite", "basics", "--model", "no-such-model", "--account", "ACCOUNT"], 1, "no-such-model"],
    ["an unknown account", ["--suite", "basics", "--model", "strong", "--account", "acct_nope"], 1, "account not found"],
  ] as [string, string[], number, string][])("svc arena run with %s: nothing called", async (_label, args, code, message) => {
    const calls = g.stub.requests.length;
    const r = await svc("arena", "run", ...args.map((a) => (a === "ACCOUNT" ? g.accountId : a)), ...loc);
    expect(r.code).toBe(code);
    expect(r.err).toContain(message);
    expect(g.stub.requests.length).toBe(calls);
  });
});

describe("engines as contestants", () => {
  test("an account's published engine/<slug> runs a suite like a model; another account cannot run it", async () => {
    const created = await g.h.json("POST", "/v1/engine/builds", { headers: { authorization: `Bearer ${g.sessionToken}` }, body: { slug: "acme-strong", spec: { model: "strong", system_prompt: "Answer tersely.", parameters: {} } } });
    expect(created.status).toBe(201);
    expect((await g.h.json("POST", `/v1/engine/builds/${created.body.id}/publish`, { headers: { authorization: `Bearer ${g.sessionToken}` } })).status).toBe(200);
    const run = await runSuite(g.h.ctx, { suite: "basics", model: "engine/acme-strong", accountId: g.accountId });
    expect(run).toMatchObject({ status: "completed", model: "engine/acme-strong" });
    expect(run.passed).toBe(run.total); // the engine pins "strong", which answers every case right
    const view = await g.h.json("GET", `/v1/arena/runs/${run.id}`);
    const first = await verifyReceipt(g, view.body.receipts[0].receipt, view.body.receipts[0].signature);
    expect(first.attestations.engine).toMatchObject({ slug: "acme-strong", model: "strong" });
    const other = createAccount(g.h.ctx).id;
    await expect(runSuite(g.h.ctx, { suite: "basics", model: "engine/acme-strong", accountId: other })).rejects.toMatchObject({ status: 404, type: "model_not_found" });
  });
});
