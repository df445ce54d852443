/**
 * POST /v1/sandboxes through HTTP on a real runner: results and statuses, the receipt (body and
 * headers, verified with viem, metadata only), svc_run_id, streaming, bad input and refusals
 * (nothing billed), Idempotency-Key (first result again, billed once), and concurrency against
 * a small balance (no overspend).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type Hex, recoverMessageAddress } from "viem";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { receiptPayload, type SandboxHarness, sandboxHarness, sseEvents, tenant } from "../../support/sandbox-harness.ts";

let h: SandboxHarness;
afterEach(() => h?.close());

const run = (auth: Record<string, string>, body: Record<string, unknown>, headers: Record<string, string> = {}) => h.json("POST", "/v1/sandboxes", { headers: { ...auth, ...headers }, body });
const heldOf = (accountId: string) => h.ctx.ledger.balance(accountId).held_micro_usd;
const balanceOf = (accountId: string) => h.ctx.ledger.balance(accountId).balance_micro_usd;

describe("one-shot runs", () => {
  test("python print(1): the result, a cost billed per ms, and a signed metadata-only receipt in body and headers", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const before = balanceOf(t.accountId);
    const r = await run(t.key, { language: "python", code: "print(1)", svc_run_id: "run-alpha" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: "sandbox.run", status: "ok", exit_code: 0, stdout: "1\n", stderr: "", truncated: false, timed_out: false, language: "python", node_id: null, session_id: null, run_id: "run-alpha" });
    expect(r.body.id).toMatch(/^sbx_/);
    // 100 µ$/s, per millisecond rounded up: a run of d ms costs ⌈d/10⌉.
    expect(r.body.cost_micro_usd).toBe(Math.ceil(r.body.duration_ms / 10));
    expect(r.body.cost_micro_usd).toBeGreaterThan(0);
    expect(balanceOf(t.accountId)).toBe(before - r.body.cost_micro_usd);
    expect(heldOf(t.accountId)).toBe(0);

    const rc = r.body.receipt;
    expect(r.headers.get("x-svc-receipt-id")).toBe(rc.id);
    expect(r.headers.get("x-svc-receipt")).toBe(rc.receipt);
    expect(r.headers.get("x-svc-receipt-signature")).toBe(rc.signature);
    expect(r.headers.get("x-svc-cost-micro-usd")).toBe(String(r.body.cost_micro_usd));
    expect(r.headers.get("x-svc-run-id")).toBe("run-alpha");
    const pub = await h.json("GET", "/v1/receipts/pubkey");
    expect(await recoverMessageAddress({ message: rc.receipt, signature: rc.signature as Hex })).toBe(pub.body.address);
    const payload = receiptPayload(rc.receipt);
    expect(payload).toMatchObject({ kind: "sandbox", resource: "python", run_id: "run-alpha", cost_micro_usd: r.body.cost_micro_usd, reserved_micro_usd: 1000 });
    expect(payload.units).toMatchObject({ language: "python", exit_code: 0, run_status: "ok", sandbox_run_id: r.body.id, duration_ms: r.body.duration_ms });
    expect(Buffer.from(rc.receipt, "base64url").toString()).not.toContain("print");
    // The receipt is also the owner's to look up.
    expect((await h.json("GET", `/v1/receipts/${rc.id}`, { headers: t.session })).status).toBe(200);
  });

  test("args, env, stdin and files reach the program; a failing program is status error with its exit code", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const code = "import os, sys\nprint(sys.argv[1:], os.environ['GREETING'], sys.stdin.read(), open('data/in.txt').read())\nsys.exit(3)";
    const r = await run(t.key, { language: "python", code, args: ["a", "b"], env: { GREETING: "hi" }, stdin: "piped", files: { "data/in.txt": "file" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "error", exit_code: 3, stdout: "['a', 'b'] hi piped file\n" });
    const js = await run(t.key, { language: "javascript", code: "console.log(1 + 1)" });
    expect(js.body.stdout).toBe("2\n");
    const sh = await run(t.key, { language: "bash", code: "echo $((6 * 7))" });
    expect(sh.body.stdout).toBe("42\n");
  });

  test("a run past its timeout is killed: status timeout, timed_out, a non-zero exit code, billed at most the timeout", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const r = await run(t.key, { language: "bash", code: "sleep 5", timeout_ms: 300 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "timeout", timed_out: true, exit_code: 137, signal: "SIGKILL", killed_reason: "timeout" });
    expect(r.body.cost_micro_usd).toBeLessThanOrEqual(30);
    expect(receiptPayload(r.body.receipt.receipt).units).toMatchObject({ timed_out: true, billed_ms: 300 });
  });

  test("stream: true answers SSE: stdout and stderr events, then exit with the result and its receipt", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const res = await h.request("POST", "/v1/sandboxes", {
      headers: t.key,
      body: { language: "python", code: "import sys\nprint('out')\nprint('err', file=sys.stderr)", stream: true, svc_run_id: "streamed" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    expect(res.headers.get("x-svc-run-id")).toBe("streamed");
    const events = sseEvents(await res.text());
    const exit = events.at(-1)!;
    expect(exit.event).toBe("exit");
    expect(events.filter((e) => e.event === "stdout").map((e) => e.data.data).join("")).toBe("out\n");
    expect(events.filter((e) => e.event === "stderr").map((e) => e.data.data).join("")).toBe("err\n");
    expect(exit.data).toMatchObject({ status: "ok", exit_code: 0, stdout: "out\n", stderr: "err\n", run_id: "streamed" });
    expect(receiptPayload(exit.data.receipt.receipt).cost_micro_usd).toBe(exit.data.cost_micro_usd);
    expect(h.ctx.ledger.balance(t.accountId).held_micro_usd).toBe(0);
  });
});

describe("refusals", () => {
  test("bad input names the field and bills nothing", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const cases: [Record<string, unknown>, string][] = [
      [{ code: "print(1)" }, "language"],
      [{ language: "cobol", code: "x" }, "language"],
      [{ language: "python" }, "code"],
      [{ language: "python", code: "x", timeout_ms: 300_001 }, "timeout_ms"],
      [{ language: "python", code: "x", timeout_ms: "5" }, "timeout_ms"],
      [{ language: "python", code: "x", colour: "red" }, "colour"],
      [{ language: "python", code: "x", env: { LD_PRELOAD: "/x.so" } }, "env.LD_PRELOAD"],
      [{ language: "python", code: "x", files: { "../escape": "x" } }, "files.../escape"],
    ];
    for (const [body, param] of cases) {
      const r = await run(t.key, body);
      expect([r.status, r.body.error.param]).toEqual([400, param]);
    }
    expect(balanceOf(t.accountId)).toBe(10_000_000);
    expect(heldOf(t.accountId)).toBe(0);
    expect(h.ctx.outbox.since(0).filter((e) => e.type === "receipt_minted")).toEqual([]);
  });

  test("no key 401, a key without the sandboxes scope 403, no credit 402 with nothing run", async () => {
    h = sandboxHarness();
    const body = { language: "python", code: "print(1)" };
    expect((await h.json("POST", "/v1/sandboxes", { body })).status).toBe(401);
    const { account } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 1_000_000, { type: "deposit" });
    const other = apiKeyFor(h.ctx, account.id, { scopes: ["inference"] });
    const scoped = await run(bearer(other.token), body);
    expect([scoped.status, scoped.body.error.type]).toEqual([403, "missing_scope"]);
    const broke = tenant(h.ctx, 0);
    const r = await run(broke.key, body);
    expect([r.status, r.body.error.type]).toEqual([402, "insufficient_credit"]);
    expect(h.ctx.db.query("SELECT count(*) AS n FROM sandbox_runs").get()).toEqual({ n: 0 });
  });

  test("a key's monthly cap refuses a run whose worst case does not fit", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx, 10, { monthlyCap: 500 });
    const r = await run(t.key, { language: "python", code: "print(1)" }); // reserves 1000 at the 10 s default timeout
    expect([r.status, r.body.error.type]).toEqual([402, "spend_cap_reached"]);
    expect((await run(t.key, { language: "python", code: "print(1)", timeout_ms: 4000 })).status).toBe(200);
  });
});

describe("Idempotency-Key", () => {
  test("a repeat answers the first result and is never billed again; another body with the key is 422; a refused request frees it", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const body = { language: "python", code: "import random\nprint(random.random())" };
    const first = await run(t.key, body, { "idempotency-key": "k-1" });
    const afterFirst = balanceOf(t.accountId);
    const again = await run(t.key, body, { "idempotency-key": "k-1" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-svc-receipt-id")).toBe(first.body.receipt.id);
    expect(balanceOf(t.accountId)).toBe(afterFirst);
    expect(h.ctx.db.query("SELECT count(*) AS n FROM sandbox_runs").get()).toEqual({ n: 1 });
    // The same request streamed gets the same result as events.
    const streamed = await h.request("POST", "/v1/sandboxes", { headers: { ...t.key, "idempotency-key": "k-1" }, body: { ...body } });
    expect(((await streamed.json()) as any).id).toBe(first.body.id);
    const sse = sseEvents(await (await h.request("POST", "/v1/sandboxes", { headers: { ...t.key, "idempotency-key": "k-2" }, body: { ...body, stream: true } })).text());
    const sseAgain = sseEvents(await (await h.request("POST", "/v1/sandboxes", { headers: { ...t.key, "idempotency-key": "k-2" }, body: { ...body, stream: true } })).text());
    expect(sseAgain.at(-1)!.data).toEqual(sse.at(-1)!.data);
    expect(h.ctx.db.query("SELECT count(*) AS n FROM sandbox_runs").get()).toEqual({ n: 2 });

    const reused = await run(t.key, { ...body, code: "print(2)" }, { "idempotency-key": "k-1" });
    expect([reused.status, reused.body.error.type]).toEqual([422, "idempotency_key_reused"]);
    // Per account: another tenant's k-1 is its own.
    const other = tenant(h.ctx);
    const theirs = await run(other.key, body, { "idempotency-key": "k-1" });
    expect(theirs.body.id).not.toBe(first.body.id);

    const broke = tenant(h.ctx, 0);
    expect((await run(broke.key, body, { "idempotency-key": "k-3" })).status).toBe(402);
    h.ctx.ledger.credit(broke.accountId, 1_000_000, { type: "deposit" });
    expect((await run(broke.key, body, { "idempotency-key": "k-3" })).status).toBe(200);
    expect((await run(t.key, body, { "idempotency-key": "bad key with spaces" })).body.error.param).toBe("Idempotency-Key");
  });

  test("a key is kept 24 hours (then pruned by its job) and the results are sealed at rest", async () => {
    h = sandboxHarness();
    const { registerJobs } = await import("../../../src/jobs.ts");
    registerJobs(h.ctx);
    const t = tenant(h.ctx);
    const first = await run(t.key, { language: "bash", code: "echo secret-output" }, { "idempotency-key": "day" });
    const stored = h.ctx.db.query<{ response: string }, []>("SELECT response FROM sandbox_idempotency").get()!;
    expect(stored.response).not.toContain("secret-output");
    h.clock.advance(24 * 3600_000 + 1000);
    await h.ctx.scheduler.runDue();
    expect(h.ctx.db.query("SELECT count(*) AS n FROM sandbox_idempotency").get()).toEqual({ n: 0 });
    const later = await run(t.key, { language: "bash", code: "echo secret-output" }, { "idempotency-key": "day" });
    expect(later.body.id).not.toBe(first.body.id);
  });

  test("concurrent requests with one key run once: the others are 409 while it runs, or get its result", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const body = { language: "bash", code: "sleep 0.3; echo once" };
    const answers = await Promise.all([1, 2, 3].map(() => run(t.key, body, { "idempotency-key": "race" })));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect([a.status, a.body.error.type]).toEqual([409, "idempotency_key_in_progress"]);
    expect(new Set(ok.map((a) => a.body.id)).size).toBe(1);
    expect(h.ctx.db.query("SELECT count(*) AS n FROM sandbox_runs").get()).toEqual({ n: 1 });
  });
});

describe("concurrency", () => {
  test("many concurrent runs against a small balance never overspend: only what the balance can reserve runs", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx, 0.0025); // 2500 µ$: two runs at their 1000 µ$ worst case
    const answers = await Promise.all(Array.from({ length: 10 }, () => run(t.key, { language: "bash", code: "echo hi" })));
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 402);
    expect(ok.length).toBe(2);
    expect(refused.length).toBe(8);
    for (const a of refused) expect(a.body.error.type).toBe("insufficient_credit");
    const spent = ok.reduce((sum, a) => sum + a.body.cost_micro_usd, 0);
    const b = h.ctx.ledger.balance(t.accountId);
    expect(b.balance_micro_usd).toBe(2500 - spent);
    expect(b.held_micro_usd).toBe(0);
    expect(b.balance_micro_usd).toBeGreaterThanOrEqual(0);
  });
});
