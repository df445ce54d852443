/**
 * Hosted agents, defined and run for real: the routes (success, documented errors, bad input by
 * field, the 20-agent cap, another tenant's ids 404), the agent's own delegated key, and runs
 * driven by the upstream stand-in's scripted tool calls — an agent that runs code under
 * bubblewrap then answers, one that writes state, one that calls an allowlisted tool of a real
 * MCP server, a looping agent stopped by its per-run budget and one by max_steps. Every step is
 * receipted into the run: the receipts recover (viem) to the deployment's signer, and the run's
 * Merkle proof (POST /v1/runs/:id/proof) covers each one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Hex, recoverMessageAddress } from "viem";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { verifyReceiptInclusion } from "../../support/inclusion-proof.ts";
import { startUpstream as startMcpUpstream } from "../../support/mcp-upstream.ts";
import { type AgentsGateway, startAgentsGateway } from "./agents-support.ts";

let g: AgentsGateway;
beforeAll(async () => {
  g = await startAgentsGateway({ sandboxes: true, harness: { config: (c) => void (c.webhooks.allow_private = true) } });
});
afterAll(() => g.stop());

const run = async (agentId: string, input = "go") => {
  const t = await g.session("POST", `/v1/agents/${agentId}/trigger`, { input });
  expect(t.status).toBe(201);
  expect(t.body).toMatchObject({ agent_id: agentId, status: "queued", trigger: "manual" });
  return g.finished(agentId, t.body.id);
};

/** A second account with its own session and key. */
const otherTenant = () => {
  const { account, session } = accountWithSession(g.h.ctx);
  return { accountId: account.id, session: session.token, key: apiKeyFor(g.h.ctx, account.id).token };
};

describe("POST /v1/agents", () => {
  test("defines an agent on its own key: a child of a root key made for it, holding only the scopes its tools need", async () => {
    const marker = `secret-instructions-${crypto.randomUUID()}`;
    const agent = await g.createAgent({ name: "coder", instructions: marker, tools: ["sandbox_run", "state_set"], monthly_cap_micro_usd: 5_000_000 });
    expect(agent).toMatchObject({
      name: "coder",
      model: "gpt-test",
      instructions: marker,
      tools: ["sandbox_run", "state_set"],
      mcp_servers: [],
      max_steps: 8,
      budget_micro_usd_per_run: null,
      monthly_cap_micro_usd: 5_000_000,
      enabled: true,
      hook: { enabled: false, signed: false },
      triggers: { mailbox: false, max_runs_per_hour: null },
    });
    const keys = (await g.session("GET", "/v1/keys")).body as any[];
    const own = keys.find((k) => k.id === agent.key_id);
    const root = keys.find((k) => k.id === agent.parent_key_id);
    expect(own).toMatchObject({ kind: "delegated", parent_id: agent.parent_key_id, scopes: ["inference", "sandboxes", "state"], monthly_cap_micro_usd: 5_000_000 });
    expect(root).toMatchObject({ parent_id: null, scopes: ["inference", "sandboxes", "state"] });
    // The instructions are sealed at rest.
    g.h.ctx.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    expect((await Bun.file(`${g.h.dir}/svc.db`).text()).includes(marker)).toBe(false);
  });

  test("key_id: the agent's key is delegated from it and bounded by it", async () => {
    const parent = apiKeyFor(g.h.ctx, g.accountId, { scopes: ["inference", "mailbox"], monthlyCap: 1_000_000 });
    const agent = await g.createAgent({ key_id: parent.id, tools: ["send_message"] });
    expect(agent.parent_key_id).toBe(parent.id);
    const keys = (await g.session("GET", "/v1/keys")).body as any[];
    expect(keys.find((k) => k.id === agent.key_id)).toMatchObject({ parent_id: parent.id, scopes: ["inference", "mailbox"], monthly_cap_micro_usd: 1_000_000 });

    const lacking = await g.session("POST", "/v1/agents", { name: "a", model: "gpt-test", instructions: "x", key_id: parent.id, tools: ["sandbox_run"] });
    expect(lacking.status).toBe(400);
    expect(lacking.body.error.param).toBe("key_id");
    expect(lacking.body.error.message).toContain("sandboxes");
    const overCap = await g.session("POST", "/v1/agents", { name: "a", model: "gpt-test", instructions: "x", key_id: parent.id, monthly_cap_micro_usd: 2_000_000 });
    expect(overCap.status).toBe(400);
    expect(overCap.body.error.param).toBe("monthly_cap_micro_usd");
    const foreign = otherTenant();
    const foreignKey = apiKeyFor(g.h.ctx, foreign.accountId);
    expect((await g.session("POST", "/v1/agents", { name: "a", model: "gpt-test", instructions: "x", key_id: foreignKey.id })).status).toBe(404);
  });

  const bad: [string, Record<string, unknown>, number, string][] = [
    ["no name", { name: undefined }, 400, "name"],
    ["an empty instruction", { instructions: "" }, 400, "instructions"],
    ["an unknown model", { model: "no-such-model" }, 404, "model"],
    ["an embedding model", { model: "embed-test" }, 400, "model"],
    ["an unknown tool", { tools: ["rm_rf"] }, 400, "tools.0"],
    ["a repeated tool", { tools: ["state_get", "state_get"] }, 400, "tools"],
    ["an MCP server it does not have", { mcp_servers: ["mcps_nope"] }, 400, "mcp_servers.0"],
    ["max_steps 0", { max_steps: 0 }, 400, "max_steps"],
    ["max_steps above the deployment's limit", { max_steps: 51 }, 400, "max_steps"],
    ["a negative budget", { budget_micro_usd_per_run: -1 }, 400, "budget_micro_usd_per_run"],
    ["a fractional cap", { monthly_cap_micro_usd: 1.5 }, 400, "monthly_cap_micro_usd"],
    ["an unknown field", { colour: "red" }, 400, "colour"],
    ["an unknown key", { key_id: "key_nope" }, 404, ""],
  ];
  test.each(bad)("refuses %s, naming the field, and writes nothing", async (_, over, status, param) => {
    const before = (await g.session("GET", "/v1/agents")).body.agents.length;
    const r = await g.session("POST", "/v1/agents", { name: "bad", model: "gpt-test", instructions: "x", ...over });
    expect(r.status).toBe(status);
    if (param) expect(JSON.stringify(r.body.error)).toContain(param);
    expect((await g.session("GET", "/v1/agents")).body.agents.length).toBe(before);
  });

  test("answers 401 to an API key or no credential", async () => {
    expect((await g.keyed("POST", "/v1/agents", { name: "a", model: "gpt-test", instructions: "x" })).status).toBe(401);
    expect((await g.h.json("GET", "/v1/agents")).status).toBe(401);
  });

  test("holds 20 agents per account: the 21st is 409 agent_limit_reached, deleting one makes room", async () => {
    const t = otherTenant();
    const as = (method: string, path: string, body?: unknown) => g.h.json(method, path, { headers: bearer(t.session), ...(body ? { body } : {}) });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await as("POST", "/v1/agents", { name: `a${i}`, model: "gpt-test", instructions: "x" });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    const over = await as("POST", "/v1/agents", { name: "a20", model: "gpt-test", instructions: "x" });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ type: "agent_limit_reached", limit: 20 });
    expect((await as("DELETE", `/v1/agents/${ids[0]}`)).status).toBe(200);
    expect((await as("POST", "/v1/agents", { name: "again", model: "gpt-test", instructions: "x" })).status).toBe(201);
    // The other account sees none of these.
    expect((await g.session("GET", "/v1/agents")).body.agents.some((a: any) => ids.includes(a.id))).toBe(false);
  });
});

describe("an agent's lifecycle", () => {
  test("gate, triggers, list; another tenant's agent id answers 404 on every route", async () => {
    const agent = await g.createAgent({ name: "gated" });
    const listed = await g.session("GET", "/v1/agents");
    expect(listed.status).toBe(200);
    expect(listed.body.agents[0].id).toBe(agent.id);

    const off = await g.session("POST", `/v1/agents/${agent.id}/gate`, { enabled: false });
    expect(off.body.enabled).toBe(false);
    const refused = await g.session("POST", `/v1/agents/${agent.id}/trigger`, { input: "x" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.type).toBe("agent_disabled");
    expect((await g.session("POST", `/v1/agents/${agent.id}/gate`, { enabled: true })).body.enabled).toBe(true);
    expect((await g.session("POST", `/v1/agents/${agent.id}/gate`, { enabled: "yes" })).status).toBe(400);

    const triggers = await g.session("POST", `/v1/agents/${agent.id}/triggers`, { mailbox: true, max_runs_per_hour: 5 });
    expect(triggers.body.triggers).toEqual({ mailbox: true, max_runs_per_hour: 5 });
    expect((await g.session("POST", `/v1/agents/${agent.id}/triggers`, { max_runs_per_hour: 0 })).status).toBe(400);

    const t = otherTenant();
    const foreign: [string, string, unknown?][] = [
      ["DELETE", `/v1/agents/${agent.id}`],
      ["POST", `/v1/agents/${agent.id}/gate`, { enabled: false }],
      ["POST", `/v1/agents/${agent.id}/trigger`, { input: "x" }],
      ["POST", `/v1/agents/${agent.id}/triggers`, { mailbox: false }],
      ["POST", `/v1/agents/${agent.id}/hooks/rotate`],
      ["POST", `/v1/agents/${agent.id}/hooks/disable`],
      ["POST", `/v1/agents/${agent.id}/hooks/secret`],
      ["GET", `/v1/agents/${agent.id}/runs`],
      ["GET", `/v1/agents/${agent.id}/runs/run_nope`],
    ];
    for (const [method, path, body] of foreign) {
      const r = await g.h.json(method, path, { headers: bearer(t.session), ...(body ? { body } : {}) });
      expect(`${method} ${path} ${r.status}`).toBe(`${method} ${path} 404`);
    }
  });

  test("DELETE revokes the agent's keys, cancels nothing that ran, keeps the run history; the agent is gone elsewhere", async () => {
    const agent = await g.createAgent({ name: "short-lived" });
    const done = await run(agent.id, "hello");
    expect(done.status).toBe("succeeded");
    const deleted = await g.session("DELETE", `/v1/agents/${agent.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: agent.id, deleted: true, cancelled_runs: 0 });
    const keys = (await g.session("GET", "/v1/keys?include_revoked=true")).body as any[];
    expect(keys.find((k) => k.id === agent.key_id).status).toBe("revoked");
    expect(keys.find((k) => k.id === agent.parent_key_id).status).toBe("revoked");
    expect((await g.session("POST", `/v1/agents/${agent.id}/trigger`, { input: "x" })).status).toBe(404);
    expect((await g.session("DELETE", `/v1/agents/${agent.id}`)).status).toBe(404);
    const history = await g.session("GET", `/v1/agents/${agent.id}/runs`);
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({ agent_id: agent.id, runs: [{ id: done.id, status: "succeeded" }] });
    expect((await g.session("GET", "/v1/agents")).body.agents.some((a: any) => a.id === agent.id)).toBe(false);
  });
});

/** Checks every receipt of a run with viem and against the run's Merkle proof. */
async function checkProof(detail: any): Promise<void> {
  expect(detail.receipts.length).toBeGreaterThan(0);
  for (const r of detail.receipts) {
    const signer = await recoverMessageAddress({ message: r.receipt, signature: r.signature as Hex });
    expect(signer.toLowerCase()).toBe(g.h.ctx.signer.address.toLowerCase());
    expect(JSON.parse(Buffer.from(r.receipt, "base64url").toString("utf8")).run_id).toBe(detail.id);
  }
  const proof = await g.session("POST", `/v1/runs/${detail.id}/proof`);
  expect(proof.status).toBe(200);
  expect(proof.body.tree_size).toBe(detail.receipts.length);
  expect(proof.body.receipts.map((r: any) => r.id)).toEqual(detail.receipts.map((r: any) => r.id));
  for (const r of proof.body.receipts) expect(verifyReceiptInclusion(r.receipt, r.index, proof.body.tree_size, r.proof, proof.body.root)).toBe(true);
}

describe("the hook, end to end", () => {
  test("rotate gives a URL once; a POST to it answers 202 and runs the agent with the body as input; disable kills it", async () => {
    const agent = await g.createAgent({ name: "hooked" });
    const rotated = await g.session("POST", `/v1/agents/${agent.id}/hooks/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ agent_id: agent.id, signed: false });
    const path = new URL(rotated.body.url).pathname;
    expect(path).toStartWith(`/v1/agents/${agent.id}/hooks/ahk_`);
    const hit = await g.h.json("POST", path, { raw: "ticket 42 is on fire", headers: { "content-type": "text/plain" } });
    expect(hit.status).toBe(202);
    expect(hit.body).toMatchObject({ agent_id: agent.id, status: "queued" });
    const detail = await g.finished(agent.id, hit.body.run_id);
    expect(detail).toMatchObject({ status: "succeeded", trigger: "hook", input: "ticket 42 is on fire", output: "reply to: ticket 42 is on fire" });
    expect((await g.session("GET", "/v1/agents")).body.agents.find((a: any) => a.id === agent.id).hook).toEqual({ enabled: true, signed: false });

    const secret = await g.session("POST", `/v1/agents/${agent.id}/hooks/secret`);
    expect(secret.body).toMatchObject({ agent_id: agent.id, signed: true });
    expect(secret.body.secret).toStartWith("ahs_");
    const disabled = await g.session("POST", `/v1/agents/${agent.id}/hooks/disable`);
    expect(disabled.body.hook).toEqual({ enabled: false, signed: true });
    expect((await g.h.json("POST", path, { body: { x: 1 } })).status).toBe(404);
  });
});

describe("runs", () => {
  test("an agent that runs code in a sandbox, then answers: each step metered and receipted into the run, the proof checks", async () => {
    const agent = await g.createAgent({ name: "coder", tools: ["sandbox_run"], instructions: 'Compute it. [[call sandbox_run {"language":"python","code":"print(6 * 7)"}]]' });
    const before = g.h.ctx.ledger.balance(g.accountId).balance_micro_usd;
    const detail = await run(agent.id, "what is six times seven?");
    expect(detail).toMatchObject({ status: "succeeded", trigger: "manual", turns: 2, error: null, input: "what is six times seven?" });
    expect(detail.output).toContain('"stdout":"42\\n"');
    expect(detail.steps.map((s: any) => [s.kind, s.name, s.status])).toEqual([
      ["model", "gpt-test", "succeeded"],
      ["tool", "sandbox_run", "succeeded"],
      ["model", "gpt-test", "succeeded"],
    ]);
    expect(detail.receipts.map((r: any) => r.kind)).toEqual(["inference", "sandbox", "inference"]);
    expect(detail.steps.map((s: any) => s.receipt_id)).toEqual(detail.receipts.map((r: any) => r.id));
    const total = detail.receipts.reduce((n: number, r: any) => n + r.cost_micro_usd, 0);
    expect(detail.cost_micro_usd).toBe(total);
    expect(g.h.ctx.ledger.balance(g.accountId).balance_micro_usd).toBe(before - total);
    // Every model call went out under the agent's key with the run id; the stub saw the tool.
    const sent = g.stub.requests.filter((r) => r.path === "/v1/chat/completions").slice(-2);
    expect(sent[0]!.body.tools.map((t: any) => t.function.name)).toEqual(["sandbox_run"]);
    expect(sent[1]!.body.messages.at(-1)).toMatchObject({ role: "tool" });
    await checkProof(detail);
    const listed = await g.session("GET", `/v1/agents/${agent.id}/runs`);
    expect(listed.body).toMatchObject({ agent_id: agent.id, runs: [{ id: detail.id, status: "succeeded", turns: 2 }] });
    // The output is sealed at rest.
    g.h.ctx.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    expect((await Bun.file(`${g.h.dir}/svc.db`).text()).includes("what is six times seven?")).toBe(false);
  });

  test("an agent that writes state: the value is in the account's state afterwards", async () => {
    const agent = await g.createAgent({ name: "scribe", tools: ["state_set"], instructions: 'Remember. [[call state_set {"key":"agent-note","namespace":"agents","value":{"seen":true}}]]' });
    const detail = await run(agent.id);
    expect(detail.status).toBe("succeeded");
    expect(detail.steps[1]).toMatchObject({ kind: "tool", name: "state_set", status: "succeeded" });
    const state = await g.keyed("GET", "/v1/state/agent-note?namespace=agents");
    expect(state.body.value).toEqual({ seen: true });
    expect(detail.receipts.map((r: any) => r.kind)).toEqual(["inference", "mcp_call", "inference"]);
    await checkProof(detail);
  });

  test("an agent that calls an allowlisted tool of a registered MCP server, through the gateway", async () => {
    const upstream = startMcpUpstream();
    const server = await g.session("POST", "/v1/mcp-servers", { name: "calc", url: upstream.url, allowed_tools: ["add"] });
    expect(server.status).toBe(201);
    const fn = `${server.body.id}__add`;
    const agent = await g.createAgent({ name: "adder", mcp_servers: [server.body.id], instructions: `Add. [[call ${fn} {"a":2,"b":3}]]` });
    const detail = await run(agent.id);
    expect(detail.status).toBe("succeeded");
    expect(detail.output).toBe("reply to: 5");
    expect(detail.steps[1]).toMatchObject({ kind: "tool", name: fn, status: "succeeded" });
    expect(upstream.calls("add").length).toBe(1);
    // The model was offered only the allowlisted tool.
    const offered = g.stub.requests.filter((r) => r.path === "/v1/chat/completions").at(-2)!.body.tools.map((t: any) => t.function.name);
    expect(offered).toEqual([fn]);
    await checkProof(detail);
  });

  test("a looping agent is stopped by its per-run budget", async () => {
    const agent = await g.createAgent({ name: "looper", tools: ["state_list"], max_steps: 50, budget_micro_usd_per_run: 1_500, instructions: "Forever. [[loop state_list {}]]" });
    const detail = await run(agent.id);
    expect(detail.status).toBe("failed");
    expect(detail.error.type).toBe("budget_exhausted");
    expect(detail.turns).toBeLessThan(50);
    // Stopped at the first call after the spend reached the budget: at most one call's cost over.
    const last = detail.receipts.at(-1).cost_micro_usd;
    expect(detail.cost_micro_usd).toBeGreaterThanOrEqual(1_500);
    expect(detail.cost_micro_usd).toBeLessThan(1_500 + last + 1);
  });

  test("max_steps bounds the model turns", async () => {
    const agent = await g.createAgent({ name: "stepper", tools: ["state_list"], max_steps: 3, instructions: "[[loop state_list {}]]" });
    const detail = await run(agent.id);
    expect(detail).toMatchObject({ status: "failed", turns: 3, error: { type: "max_steps" } });
    expect(detail.steps.filter((s: any) => s.kind === "model").length).toBe(3);
  });

  test("an account without credit: the run fails with insufficient_credit and nothing is spent", async () => {
    const t = otherTenant();
    const made = await g.h.json("POST", "/v1/agents", { headers: bearer(t.session), body: { name: "broke", model: "gpt-test", instructions: "x" } });
    const queued = await g.h.json("POST", `/v1/agents/${made.body.id}/trigger`, { headers: bearer(t.session), body: { input: "x" } });
    let detail: any;
    for (let i = 0; i < 400; i++) {
      detail = (await g.h.json("GET", `/v1/agents/${made.body.id}/runs/${queued.body.id}`, { headers: bearer(t.session) })).body;
      if (detail.status !== "queued" && detail.status !== "running") break;
      await Bun.sleep(25);
    }
    expect(detail).toMatchObject({ status: "failed", cost_micro_usd: 0, error: { type: "insufficient_credit" } });
    expect(detail.steps).toMatchObject([{ kind: "model", status: "refused" }]);
    expect(g.h.ctx.ledger.balance(t.accountId).balance_micro_usd).toBe(0);
    // Another tenant cannot read it.
    expect((await g.session("GET", `/v1/agents/${made.body.id}/runs/${queued.body.id}`)).status).toBe(404);
  });

  test("a run id of another agent answers 404; bad trigger input is refused by field", async () => {
    const a = await g.createAgent({ name: "a" });
    const b = await g.createAgent({ name: "b" });
    const done = await run(a.id);
    expect((await g.session("GET", `/v1/agents/${b.id}/runs/${done.id}`)).status).toBe(404);
    const missing = await g.session("POST", `/v1/agents/${a.id}/trigger`, {});
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.error)).toContain("input");
  });
});
