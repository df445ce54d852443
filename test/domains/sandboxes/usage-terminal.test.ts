/**
 * GET /v1/usage/sandboxes and /v1/usage/sandboxes/:id (session class: sessions and one-shots
 * with their cost, one session's execs), the 100-row caps of the bare-array lists, and the
 * keyless POST /v1/terminal/run: an empty 404 while off, then per-IP limited under a daily budget.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type SandboxHarness, sandboxHarness, tenant } from "../../support/sandbox-harness.ts";

let h: SandboxHarness;
afterEach(() => h?.close());

describe("usage", () => {
  test("sessions and one-shots with their cost, newest first; one session's execs; another tenant's is 404; session class only", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const one = (await h.json("POST", "/v1/sandboxes", { headers: t.key, body: { language: "python", code: "print(1)" } })).body;
    h.clock.advance(1000);
    const s = (await h.json("POST", "/v1/sandboxes/sessions", { headers: t.key, body: { language: "bash" } })).body;
    const e1 = (await h.json("POST", `/v1/sandboxes/sessions/${s.id}/exec`, { headers: t.key, body: { code: "echo a" } })).body;
    h.clock.advance(1000);
    const e2 = (await h.json("POST", `/v1/sandboxes/sessions/${s.id}/exec`, { headers: t.key, body: { command: "exit 4" } })).body;

    const list = await h.json("GET", "/v1/usage/sandboxes", { headers: t.session });
    expect(list.status).toBe(200);
    expect(list.body.map((r: { id: string; kind: string }) => [r.id, r.kind])).toEqual([
      [s.id, "session"],
      [one.id, "one_shot"],
    ]);
    expect(list.body[0]).toMatchObject({ status: "live", exec_count: 2, cost_micro_usd: e1.cost_micro_usd + e2.cost_micro_usd, alive_seconds: 1, ended_at: null });
    expect(list.body[1]).toMatchObject({ status: "ok", exec_count: 1, cost_micro_usd: one.cost_micro_usd, alive_seconds: null, language: "python" });

    const detail = await h.json("GET", `/v1/usage/sandboxes/${s.id}`, { headers: t.session });
    expect(detail.body).toMatchObject({ id: s.id, kind: "session", exec_cost_micro_usd: e1.cost_micro_usd + e2.cost_micro_usd, alive_cost_micro_usd: 0 });
    expect(detail.body.execs.map((x: { id: string; exit_code: number; receipt_id: string }) => [x.id, x.exit_code, x.receipt_id])).toEqual([
      [e2.id, 4, e2.receipt.id],
      [e1.id, 0, e1.receipt.id],
    ]);
    const single = await h.json("GET", `/v1/usage/sandboxes/${one.id}`, { headers: t.session });
    expect(single.body).toMatchObject({ kind: "one_shot", execs: [{ id: one.id, status: "ok", cost_micro_usd: one.cost_micro_usd }] });

    const other = tenant(h.ctx);
    expect((await h.json("GET", `/v1/usage/sandboxes/${s.id}`, { headers: other.session })).status).toBe(404);
    expect((await h.json("GET", `/v1/usage/sandboxes/${e1.id}`, { headers: t.session })).status).toBe(404); // an exec is not a sandbox of its own
    expect((await h.json("GET", "/v1/usage/sandboxes", { headers: other.session })).body).toEqual([]);
    const withKey = await h.json("GET", "/v1/usage/sandboxes", { headers: t.key });
    expect([withKey.status, withKey.body.error.type]).toEqual([401, "wrong_credential_class"]);
  });

  test("bare-array lists are capped at 100, newest first", async () => {
    h = sandboxHarness();
    const t = tenant(h.ctx);
    const now = h.ctx.clock.now();
    const session = h.ctx.db.prepare(
      `INSERT INTO sandbox_sessions (id, account_id, workspace_ref, status, stop_reason, idle_timeout_secs, max_lifetime_secs, created_at, last_active_at, stopped_at, billed_until)
       VALUES (?, ?, 'ws-gone', 'stopped', 'requested', 60, 60, ?, ?, ?, ?)`,
    );
    const run = h.ctx.db.prepare("INSERT INTO sandbox_runs (id, account_id, language, status, duration_ms, cost_micro_usd, created_at) VALUES (?, ?, 'bash', 'ok', 5, 1, ?)");
    for (let i = 0; i < 110; i++) {
      session.run(`sbs_fill${i}`, t.accountId, now - 1000 * (i + 1), now, now, now);
      run.run(`sbx_fill${i}`, t.accountId, now - 1000 * (i + 1) - 500);
    }
    const sessions = (await h.json("GET", "/v1/sandboxes/sessions", { headers: t.key })).body;
    expect([sessions.length, sessions[0].id, sessions[99].id]).toEqual([100, "sbs_fill0", "sbs_fill99"]);
    const usage = (await h.json("GET", "/v1/usage/sandboxes", { headers: t.session })).body;
    expect([usage.length, usage[0].id, usage[1].id, usage[99].id]).toEqual([100, "sbs_fill0", "sbx_fill0", "sbx_fill49"]);
  });
});

describe("POST /v1/terminal/run", () => {
  test("off (the default): 404 with an empty body, whatever is sent", async () => {
    h = sandboxHarness();
    for (const init of [{ body: { language: "python", code: "print(1)" } }, { raw: "not json" }, {}]) {
      const res = await h.request("POST", "/v1/terminal/run", init);
      expect(res.status).toBe(404);
      expect(await res.text()).toBe("");
    }
    // In the OpenAPI document all the same.
    const doc = (await h.json("GET", "/openapi.json")).body;
    expect(Object.keys(doc.paths["/v1/terminal/run"])).toEqual(["post"]);
  });

  test("on: runs keyless, limited per client address, under a daily budget that resets at midnight UTC", async () => {
    h = sandboxHarness({
      config: (c) => {
        c.terminal.enabled = true;
        c.terminal.per_ip_per_minute = 2;
        c.terminal.max_timeout_ms = 2000;
        c.terminal.daily_budget_micro_usd = 200; // exactly the worst case of one run (2 s at 100 µ$/s)
      },
    });
    const run = (body: Record<string, unknown> = { language: "python", code: "print(6 * 7)" }) => h.json("POST", "/v1/terminal/run", { body });
    const first = await run();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "ok", exit_code: 0, stdout: "42\n", timed_out: false });
    expect(first.headers.get("x-svc-receipt-id")).toBeNull();
    const second = await run();
    expect([second.status, second.body.error.type]).toEqual([503, "terminal_budget_exhausted"]);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await run({ language: "python" })).status).toBe(400);
    const limited = await run();
    expect([limited.status, limited.body.error.type]).toEqual([429, "rate_limited"]);
    h.clock.advance(86_400_000);
    expect((await run({ language: "bash", code: "sleep 5" })).body).toMatchObject({ status: "timeout", timed_out: true, exit_code: 137 });
    // Nothing of a run is kept: only the day's spend.
    expect(h.ctx.db.query("SELECT count(*) AS n FROM sandbox_runs").get()).toEqual({ n: 0 });
  });
});
