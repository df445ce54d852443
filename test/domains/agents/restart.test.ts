/**
 * Hosted-agent runs across a restart. Runs are queued through the app while no scheduler runs
 * (as if svc stopped right after accepting them); the context is closed and a new one opened on
 * the same data dir, its jobs registered as `svc serve` does: the queued runs (manual and
 * mailbox, and mailbox messages still waiting for their hour) then execute and succeed. A run a
 * dead process left "running" is failed as interrupted when its job comes back — whether the
 * job is handed back at boot or reclaimed when its lease runs out — and is never re-executed:
 * the upstream stub sees no request of it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { Config } from "../../../src/config.ts";
import { parseInferenceSection } from "../../../src/domains/inference/config.ts";
import { registerJobs } from "../../../src/jobs.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { startUpstream, type UpstreamStub } from "../../support/upstream.ts";
import { PRICES, UPSTREAM_KEY, USD } from "../inference/inference-support.ts";

const HOUR_MS = 3_600_000;

const open: Harness[] = [];
afterEach(() => {
  for (const h of open.splice(0)) {
    try {
      h.close();
    } catch {
      // already closed by the test
    }
  }
});

/** The inference catalogue of the test gateway, on the stub: one openai provider, gpt-test. */
function inference(stub: UpstreamStub) {
  return (c: Config) => {
    Object.assign(
      c,
      parseInferenceSection({
        providers: [{ name: "oa", kind: "openai", base_url: stub.openaiBaseUrl, api_key_env: "SVC_TEST_UPSTREAM_KEY", timeout_secs: 10 }],
        models: [{ id: "gpt-test", provider: "oa", upstream: "stub-gpt", input_micro_usd_per_mtok: PRICES.input, output_micro_usd_per_mtok: PRICES.output, max_output: 1000 }],
      }),
    );
  };
}

/** A svc with no scheduler running (nothing executes), an account with credit, a session and a mailbox key. */
function first() {
  const stub = startUpstream({ apiKey: UPSTREAM_KEY });
  const config = inference(stub);
  const h = makeHarness({ config });
  open.push(h);
  const { account, session } = accountWithSession(h.ctx);
  h.ctx.ledger.credit(account.id, 100 * USD, { type: "deposit" });
  const key = apiKeyFor(h.ctx, account.id, { scopes: ["mailbox"] });
  return { stub, config, h, accountId: account.id, auth: bearer(session.token), keyAuth: bearer(key.token) };
}

/** The same data dir and clock opened again, the jobs registered as `svc serve` registers them (the scheduler loop not started). */
function restart(h: Harness, config: (c: Config) => void): Harness {
  h.close();
  const next = makeHarness({ dir: h.dir, clock: h.clock, config });
  open.push(next);
  registerJobs(next.ctx);
  return next;
}

const chatRequests = (stub: UpstreamStub) => stub.requests.filter((r) => r.path === "/v1/chat/completions");
const mentions = (stub: UpstreamStub, text: string) => chatRequests(stub).filter((r) => JSON.stringify(r.body).includes(text)).length;

async function createAgent(h: Harness, auth: Record<string, string>, body: Record<string, unknown> = {}) {
  const r = await h.json("POST", "/v1/agents", { headers: auth, body: { name: "agent", model: "gpt-test", instructions: "Be brief.", ...body } });
  expect(r.status).toBe(201);
  return r.body;
}

async function trigger(h: Harness, auth: Record<string, string>, agentId: string, input: string) {
  const r = await h.json("POST", `/v1/agents/${agentId}/trigger`, { headers: auth, body: { input } });
  expect(r.status).toBe(201);
  expect(r.body.status).toBe("queued");
  return r.body;
}

async function runOf(h: Harness, auth: Record<string, string>, agentId: string, runId: string) {
  const r = await h.json("GET", `/v1/agents/${agentId}/runs/${runId}`, { headers: auth });
  expect(r.status).toBe(200);
  return r.body;
}

const pendingRunJobs = (h: Harness) => h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs WHERE kind = 'agents.run'").get()!.n;

describe("agent runs across a restart", () => {
  test("runs queued while no scheduler ran execute after a restart and succeed", async () => {
    const s = first();
    const agent = await createAgent(s.h, s.auth);
    const queued = [];
    for (const input of ["restart-input-1", "restart-input-2", "restart-input-3"]) queued.push(await trigger(s.h, s.auth, agent.id, input));
    // Nothing ran: no scheduler.
    expect(chatRequests(s.stub)).toHaveLength(0);
    const before = await s.h.json("GET", `/v1/agents/${agent.id}/runs`, { headers: s.auth });
    expect(before.body.runs.map((r: any) => r.status)).toEqual(["queued", "queued", "queued"]);
    expect(pendingRunJobs(s.h)).toBe(3);

    const h = restart(s.h, s.config);
    // Still queued after the restart, until the scheduler runs.
    expect((await runOf(h, s.auth, agent.id, queued[0].id)).status).toBe("queued");
    await h.ctx.scheduler.runDue();

    for (const [i, q] of queued.entries()) {
      const run = await runOf(h, s.auth, agent.id, q.id);
      expect(run).toMatchObject({ id: q.id, status: "succeeded", trigger: "manual", error: null, turns: 1, input: `restart-input-${i + 1}` });
      expect(run.output).toStartWith(`reply to: restart-input-${i + 1}`);
      expect(run.steps.map((st: any) => [st.kind, st.name, st.status])).toEqual([["model", "gpt-test", "succeeded"]]);
      expect(run.receipts.map((r: any) => r.kind)).toEqual(["inference"]);
      expect(run.cost_micro_usd).toBeGreaterThan(0);
      expect(mentions(s.stub, `restart-input-${i + 1}`)).toBe(1);
    }
    expect(chatRequests(s.stub)).toHaveLength(3);
    expect(pendingRunJobs(h)).toBe(0);
    // Nothing runs twice.
    await h.ctx.scheduler.runDue();
    expect(chatRequests(s.stub)).toHaveLength(3);
  });

  test("mailbox runs and messages still waiting for their hour survive a restart", async () => {
    const s = first();
    const agent = await createAgent(s.h, s.auth);
    const on = await s.h.json("POST", `/v1/agents/${agent.id}/triggers`, { headers: s.auth, body: { mailbox: true, max_runs_per_hour: 1 } });
    expect(on.status).toBe(200);
    const sent = [];
    for (const body of ["mail-one", "mail-two"]) {
      const r = await s.h.json("POST", `/v1/agents/${agent.id}/messages`, { headers: s.keyAuth, body: { body } });
      expect(r.status).toBe(201);
      sent.push(r.body);
    }
    expect(typeof sent[0].run_id).toBe("string");
    expect(sent[1].run_id).toBeNull();
    const dispatchedAt = s.h.clock.now();

    const h = restart(s.h, s.config);
    await h.ctx.scheduler.runDue();
    const firstRun = await runOf(h, s.auth, agent.id, sent[0].run_id);
    expect(firstRun).toMatchObject({ status: "succeeded", trigger: "mailbox", message_id: sent[0].id });
    expect(firstRun.input).toContain("mail-one");
    expect(mentions(s.stub, "mail-two")).toBe(0);

    // The second waits for the hour of the first, across the restart too.
    h.clock.set(dispatchedAt + HOUR_MS - 1);
    await h.ctx.scheduler.runDue();
    let list = await h.json("GET", `/v1/agents/${agent.id}/messages`, { headers: s.keyAuth });
    expect(list.body.messages.map((m: any) => m.run_id === null)).toEqual([false, true]);

    h.clock.set(dispatchedAt + HOUR_MS + 1);
    await h.ctx.scheduler.runDue();
    list = await h.json("GET", `/v1/agents/${agent.id}/messages`, { headers: s.keyAuth });
    const secondRunId = list.body.messages[1].run_id;
    expect(secondRunId).toMatch(/^run_/);
    const secondRun = await runOf(h, s.auth, agent.id, secondRunId);
    expect(secondRun).toMatchObject({ status: "succeeded", trigger: "mailbox", message_id: sent[1].id, created_at: new Date(dispatchedAt + HOUR_MS + 1).toISOString() });
    expect(secondRun.input).toContain("mail-two");
    expect(mentions(s.stub, "mail-two")).toBe(1);
  });

  // How the dead process left things: the run marked running, its job claimed (running, attempt 1, leased).
  async function crashed() {
    const s = first();
    const agent = await createAgent(s.h, s.auth);
    const cut = await trigger(s.h, s.auth, agent.id, "crashed-run-marker");
    const fine = await trigger(s.h, s.auth, agent.id, "queued-run-marker");
    const now = s.h.clock.now();
    s.h.ctx.db.query("UPDATE agent_runs SET status = 'running', started_at = ? WHERE id = ?").run(now, cut.id);
    const leased = s.h.ctx.db
      .query("UPDATE jobs SET status = 'running', attempts = 1, lease_until = ?, updated_at = ? WHERE unique_key = ? AND status = 'pending'")
      .run(now + s.h.ctx.config.scheduler.lease_secs * 1000, now, `agent_run:${cut.id}`);
    expect(leased.changes).toBe(1);
    return { ...s, agent, cut, fine, startedAt: now };
  }

  async function expectInterrupted(h: Harness, s: Awaited<ReturnType<typeof crashed>>) {
    const run = await runOf(h, s.auth, s.agent.id, s.cut.id);
    expect(run).toMatchObject({ status: "failed", turns: 0, cost_micro_usd: 0, output: null, steps: [], receipts: [] });
    expect(run.error.type).toBe("interrupted");
    expect(run.error.message).toContain("not repeated");
    expect(run.started_at).toBe(new Date(s.startedAt).toISOString());
    expect(run.finished_at).not.toBeNull();
    // Never re-executed: the upstream never saw it.
    expect(mentions(s.stub, "crashed-run-marker")).toBe(0);
    // The run queued beside it runs normally.
    const fine = await runOf(h, s.auth, s.agent.id, s.fine.id);
    expect(fine.status).toBe("succeeded");
    expect(mentions(s.stub, "queued-run-marker")).toBe(1);
    expect(pendingRunJobs(h)).toBe(0);
    // And it stays failed: nothing comes back for it.
    h.clock.advance(h.ctx.config.scheduler.lease_secs * 1000 * 2);
    await h.ctx.scheduler.runDue();
    expect((await runOf(h, s.auth, s.agent.id, s.cut.id)).status).toBe("failed");
    expect(chatRequests(s.stub)).toHaveLength(1);
  }

  test("a run left running by a dead process fails as interrupted when its job is handed back at boot, never re-executed", async () => {
    const s = await crashed();
    const h = restart(s.h, s.config);
    // Boot hands the dead process's claimed jobs back (scheduler.start), then they run.
    h.ctx.scheduler.start();
    try {
      await h.ctx.scheduler.runDue();
      await expectInterrupted(h, s);
    } finally {
      await h.ctx.scheduler.stop();
    }
  });

  test("…and the same when its job is reclaimed once the dead process's lease runs out", async () => {
    const s = await crashed();
    const h = restart(s.h, s.config);
    await h.ctx.scheduler.runDue();
    // Within the lease the claimed job is the dead process's still: the run stays as it was.
    expect((await runOf(h, s.auth, s.agent.id, s.cut.id)).status).toBe("running");
    expect((await runOf(h, s.auth, s.agent.id, s.fine.id)).status).toBe("succeeded");
    h.clock.advance(h.ctx.config.scheduler.lease_secs * 1000 + 1);
    await h.ctx.scheduler.runDue();
    await expectInterrupted(h, s);
  });
});
