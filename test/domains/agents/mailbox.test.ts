/**
 * Agent mailboxes over HTTP: POST/GET /v1/agents/:id/messages (API key with the mailbox scope),
 * their refusals (closed body, foreign from_agent_id, another tenant's agent, a key without the
 * scope), consume and unread_only; the mailbox trigger: an agent's send_message tool starting
 * a run of another agent with the message as its input (receipted, verified with viem and
 * through the run's Merkle proof), a burst held to max_runs_per_hour in every sliding hour of
 * the manual clock with no message lost, and a gated-off agent that takes mail but runs nothing.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { type Hex, recoverMessageAddress } from "viem";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { hashLeaf, verifyReceiptInclusion } from "../../support/inclusion-proof.ts";
import { type AgentsGateway, startAgentsGateway } from "./agents-support.ts";

const HOUR_MS = 3_600_000;

const messages = (g: AgentsGateway, agentId: string, query = "") => g.keyed("GET", `/v1/agents/${agentId}/messages${query}`);
const send = (g: AgentsGateway, agentId: string, body: unknown) => g.keyed("POST", `/v1/agents/${agentId}/messages`, body);
const runsOf = async (g: AgentsGateway, agentId: string): Promise<any[]> => {
  const r = await g.session("GET", `/v1/agents/${agentId}/runs`);
  expect(r.status).toBe(200);
  return r.body.runs;
};

/** Polls (bounded) until the agent has `count` runs, none queued or running; answers them, oldest first. */
async function settledRuns(g: AgentsGateway, agentId: string, count: number): Promise<any[]> {
  let runs: any[] = [];
  for (let i = 0; i < 400; i++) {
    await g.h.ctx.scheduler.runDue();
    runs = await runsOf(g, agentId);
    if (runs.length >= count && runs.every((r) => r.status !== "queued" && r.status !== "running")) return [...runs].reverse();
    await Bun.sleep(25);
  }
  throw new Error(`agent ${agentId}: ${runs.length} runs (${runs.map((r) => r.status).join(", ")}), expected ${count} settled`);
}

/** Another account of the same deployment, with a session and an all-scopes key. */
function otherTenant(g: AgentsGateway) {
  const { account, session } = accountWithSession(g.h.ctx);
  g.h.ctx.ledger.credit(account.id, 10_000_000, { type: "deposit" });
  const key = apiKeyFor(g.h.ctx, account.id);
  return { accountId: account.id, session: bearer(session.token), key: bearer(key.token) };
}

describe("POST/GET /v1/agents/:id/messages", () => {
  test("delivers, lists oldest first, consume marks read, unread_only", async () => {
    const g = await startAgentsGateway();
    const a = await g.createAgent({ name: "inbox" });
    const sender = await g.createAgent({ name: "sender" });

    const first = await send(g, a.id, { subject: "hi", body: "first" });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^msg_/),
      agent_id: a.id,
      from_agent_id: null,
      subject: "hi",
      body: "first",
      created_at: new Date(g.h.clock.now()).toISOString(),
      read_at: null,
      run_id: null, // no mailbox trigger: no run
    });
    g.h.clock.advance(1_000);
    const second = await send(g, a.id, { from_agent_id: sender.id, body: "second" });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ from_agent_id: sender.id, subject: null, body: "second", read_at: null });
    g.h.clock.advance(1_000);
    // Explicit nulls are taken as absent.
    const third = await send(g, a.id, { from_agent_id: null, subject: null, body: "third" });
    expect(third.status).toBe(201);

    const all = await messages(g, a.id);
    expect(all.status).toBe(200);
    expect(all.body.agent_id).toBe(a.id);
    expect(all.body.messages.map((m: any) => m.body)).toEqual(["first", "second", "third"]);
    expect(all.body.messages.map((m: any) => m.id)).toEqual([first.body.id, second.body.id, third.body.id]);
    // Listing without consume reads nothing.
    expect(all.body.messages.every((m: any) => m.read_at === null)).toBe(true);
    expect((await messages(g, a.id, "?unread_only=true")).body.messages).toHaveLength(3);

    // Another agent's mailbox is its own.
    expect((await messages(g, sender.id)).body.messages).toEqual([]);

    g.h.clock.advance(1_000);
    const consumedAt = new Date(g.h.clock.now()).toISOString();
    const consumed = await messages(g, a.id, "?consume=true&unread_only=true");
    expect(consumed.status).toBe(200);
    expect(consumed.body.messages.map((m: any) => m.body)).toEqual(["first", "second", "third"]);
    expect(consumed.body.messages.every((m: any) => m.read_at === consumedAt)).toBe(true);

    const again = await messages(g, a.id, "?consume=true&unread_only=true");
    expect(again.status).toBe(200);
    expect(again.body.messages).toEqual([]);

    // A new message is the only unread one; read ones keep their first read time.
    g.h.clock.advance(1_000);
    const fourth = await send(g, a.id, { body: "fourth" });
    expect((await messages(g, a.id, "?unread_only=true")).body.messages.map((m: any) => m.id)).toEqual([fourth.body.id]);
    expect((await messages(g, a.id, "?unread_only=false")).body.messages).toHaveLength(4);
    g.h.clock.advance(1_000);
    const everything = await messages(g, a.id, "?consume=true");
    expect(everything.body.messages.map((m: any) => m.read_at)).toEqual([consumedAt, consumedAt, consumedAt, new Date(g.h.clock.now()).toISOString()]);
    expect((await messages(g, a.id, "?unread_only=true")).body.messages).toEqual([]);
  });

  test("past 100 messages: unread_only pages through the oldest unread with consume; the plain list shows the newest 100", async () => {
    const g = await startAgentsGateway();
    const a = await g.createAgent({ name: "busy" });
    for (let i = 0; i < 130; i++) expect((await send(g, a.id, { body: `m${i}` })).status).toBe(201);
    const first = await messages(g, a.id, "?unread_only=true&consume=true");
    expect(first.body.messages.map((m: any) => m.body)).toEqual(Array.from({ length: 100 }, (_, i) => `m${i}`));
    const rest = await messages(g, a.id, "?unread_only=true&consume=true");
    expect(rest.body.messages.map((m: any) => m.body)).toEqual(Array.from({ length: 30 }, (_, i) => `m${100 + i}`));
    const recent = await messages(g, a.id);
    expect(recent.body.messages.map((m: any) => m.body)).toEqual(Array.from({ length: 100 }, (_, i) => `m${30 + i}`));
  });

  test("bad input is a 400 naming the field; nothing is delivered", async () => {
    const g = await startAgentsGateway();
    const a = await g.createAgent({ name: "inbox" });
    const theirs = otherTenant(g);
    const foreign = await g.h.json("POST", "/v1/agents", { headers: theirs.session, body: { name: "theirs", model: "gpt-test", instructions: "x" } });
    expect(foreign.status).toBe(201);
    const deleted = await g.createAgent({ name: "gone" });
    expect((await g.session("DELETE", `/v1/agents/${deleted.id}`)).status).toBe(200);

    const cases: [string, unknown, string][] = [
      ["missing body", { subject: "s" }, "body"],
      ["empty body", { body: "" }, "body"],
      ["body not a string", { body: 42 }, "body"],
      ["unknown field", { body: "x", to: "someone" }, "to"],
      ["subject too long", { body: "x", subject: "s".repeat(201) }, "subject"],
      ["from_agent_id empty", { body: "x", from_agent_id: "" }, "from_agent_id"],
      ["from_agent_id unknown", { body: "x", from_agent_id: "agt_nope" }, "from_agent_id"],
      ["from_agent_id another tenant's", { body: "x", from_agent_id: foreign.body.id }, "from_agent_id"],
      ["from_agent_id deleted", { body: "x", from_agent_id: deleted.id }, "from_agent_id"],
    ];
    for (const [label, body, param] of cases) {
      const r = await send(g, a.id, body);
      expect({ label, status: r.status, type: r.body.error?.type }).toEqual({ label, status: 400, type: "invalid_request" });
      expect({ label, param: r.body.error.param }).toEqual({ label, param });
      expect(r.body.error.message).toStartWith(`${param}: `);
    }
    expect((await messages(g, a.id)).body.messages).toEqual([]);

    // Bad query values are refused too.
    const q = await messages(g, a.id, "?consume=yes");
    expect(q.status).toBe(400);
    expect(q.body.error.param).toBe("query.consume");
  });

  test("another tenant's agent answers 404 (both routes, and alike an unknown one); a key without the mailbox scope 403", async () => {
    const g = await startAgentsGateway();
    const a = await g.createAgent({ name: "inbox" });
    const theirs = otherTenant(g);

    const unknown = await send(g, "agt_unknown", { body: "x" });
    expect(unknown.status).toBe(404);
    const post = await g.h.json("POST", `/v1/agents/${a.id}/messages`, { headers: theirs.key, body: { body: "from outside" } });
    expect(post.status).toBe(404);
    expect(post.body).toEqual(unknown.body);
    const get = await g.h.json("GET", `/v1/agents/${a.id}/messages?consume=true`, { headers: theirs.key });
    expect(get.status).toBe(404);

    const narrow = apiKeyFor(g.h.ctx, g.accountId, { scopes: ["inference"] });
    const p = await g.h.json("POST", `/v1/agents/${a.id}/messages`, { headers: bearer(narrow.token), body: { body: "x" } });
    expect(p.status).toBe(403);
    expect(p.body.error.type).toBe("missing_scope");
    const l = await g.h.json("GET", `/v1/agents/${a.id}/messages`, { headers: bearer(narrow.token) });
    expect(l.status).toBe(403);
    expect(l.body.error.type).toBe("missing_scope");
    // The session is not an API key: the mailbox routes take keys only.
    const bySession = await g.session("GET", `/v1/agents/${a.id}/messages`);
    expect(bySession.status).toBe(401);
    expect(bySession.body.error.type).toBe("wrong_credential_class");

    // Nothing got in, and nothing was consumed.
    const mine = await messages(g, a.id);
    expect(mine.status).toBe(200);
    expect(mine.body.messages).toEqual([]);
  });
});

describe("a full mailbox", () => {
  test("past agents.mailbox_max_unread unread messages senders get 429 mailbox_full until some are read", async () => {
    const g = await startAgentsGateway({ harness: { config: (c) => (c.agents.mailbox_max_unread = 2) } });
    const a = await g.createAgent({ name: "small" });
    expect((await send(g, a.id, { body: "1" })).status).toBe(201);
    expect((await send(g, a.id, { body: "2" })).status).toBe(201);
    const full = await send(g, a.id, { body: "3" });
    expect(full.status).toBe(429);
    expect(full.body.error).toMatchObject({ type: "mailbox_full", limit: 2 });
    expect((await messages(g, a.id)).body.messages.map((m: any) => m.body)).toEqual(["1", "2"]);
    expect((await messages(g, a.id, "?consume=true")).status).toBe(200);
    expect((await send(g, a.id, { body: "3" })).status).toBe(201);
  });
});

describe("the mailbox trigger", () => {
  test("agent A's send_message starts a run of B with the message as input; A's run is receipted and provable", async () => {
    const g = await startAgentsGateway();
    const b = await g.createAgent({ name: "b", instructions: "You answer mail." });
    const on = await g.session("POST", `/v1/agents/${b.id}/triggers`, { mailbox: true });
    expect(on.status).toBe(200);
    expect(on.body.triggers).toEqual({ mailbox: true, max_runs_per_hour: null });
    const a = await g.createAgent({
      name: "a",
      tools: ["send_message"],
      instructions: `Tell B. [[call send_message {"to_agent_id":"${b.id}","subject":"greeting","body":"hello B"}]]`,
    });

    const trig = await g.session("POST", `/v1/agents/${a.id}/trigger`, { input: "go" });
    expect(trig.status).toBe(201);
    expect(trig.body).toMatchObject({ agent_id: a.id, status: "queued", trigger: "manual", message_id: null });
    const aRun = await g.finished(a.id, trig.body.id);
    expect(aRun.status).toBe("succeeded");
    expect(aRun.error).toBeNull();
    expect(aRun.steps.map((s: any) => [s.kind, s.name, s.status])).toEqual([
      ["model", "gpt-test", "succeeded"],
      ["tool", "send_message", "succeeded"],
      ["model", "gpt-test", "succeeded"],
    ]);
    const toolStep = aRun.steps[1];
    expect(toolStep.receipt_id).toMatch(/^rcpt_/);

    // B's mailbox holds the message, from A, dispatched into a run.
    const [msg, ...rest] = (await messages(g, b.id)).body.messages;
    expect(rest).toEqual([]);
    // (No asymmetric matcher inside toMatchObject: Bun writes the matcher back into the object it checks.)
    expect(msg).toMatchObject({ agent_id: b.id, from_agent_id: a.id, subject: "greeting", body: "hello B" });
    expect(msg.run_id).toMatch(/^run_/);
    expect(msg.read_at).not.toBeNull(); // a dispatched message counts as read

    const bRuns = await settledRuns(g, b.id, 1);
    expect(bRuns).toHaveLength(1);
    expect(bRuns[0]).toMatchObject({ id: msg.run_id, trigger: "mailbox", message_id: msg.id, status: "succeeded" });
    const bRun = await g.finished(b.id, msg.run_id);
    expect(bRun.input).toContain("hello B");
    expect(bRun.input).toContain(a.id);
    expect(bRun.input).toContain("greeting");
    expect(bRun.output).toStartWith(`reply to: Message ${msg.id} from agent ${a.id}`);
    // B's model saw the message as its user turn.
    const bCall = g.stub.requests.find((r) => r.path === "/v1/chat/completions" && JSON.stringify(r.body.messages).includes("You answer mail."));
    expect(bCall?.body.messages.at(-1)).toMatchObject({ role: "user" });
    expect(JSON.stringify(bCall?.body.messages.at(-1).content)).toContain("hello B");

    // A's receipts: every one signed by the deployment's signer (viem), one of them the message's.
    expect(aRun.receipts.map((r: any) => r.kind).sort()).toEqual(["agent_message", "inference", "inference"]);
    for (const r of aRun.receipts) {
      expect(r.signer).toBe(g.h.ctx.signer.address);
      expect<string>(await recoverMessageAddress({ message: r.receipt, signature: r.signature as Hex })).toBe(g.h.ctx.signer.address);
    }
    const msgReceipt = aRun.receipts.find((r: any) => r.kind === "agent_message");
    expect(msgReceipt.id).toBe(toolStep.receipt_id);
    expect(msgReceipt.status).toBe("succeeded");
    const payload = JSON.parse(Buffer.from(msgReceipt.receipt, "base64url").toString("utf8"));
    // Chained into A's run, under A's own key; it names sender, recipient and the body's sha256, never the text.
    expect(payload).toMatchObject({ id: msgReceipt.id, kind: "agent_message", run_id: trig.body.id, account: g.accountId, key_id: a.key_id, cost_micro_usd: 0 });
    expect(payload.attestations.action).toEqual({
      type: "agent_message",
      from_agent_id: a.id,
      to_agent_id: b.id,
      body_sha256: createHash("sha256").update("hello B").digest("hex"),
      status: "succeeded",
    });
    expect(JSON.stringify(payload)).not.toContain("hello B");
    // The model steps' receipts are the run's inference receipts.
    expect(aRun.steps.filter((s: any) => s.kind === "model").map((s: any) => s.receipt_id).sort()).toEqual(
      aRun.receipts.filter((r: any) => r.kind === "inference").map((r: any) => r.id).sort(),
    );

    // The run's Merkle proof covers exactly those receipts, each provably included.
    const proof = await g.session("POST", `/v1/runs/${trig.body.id}/proof`);
    expect(proof.status).toBe(200);
    expect(proof.body.run_id).toBe(trig.body.id);
    expect(proof.body.root).toMatch(/^[0-9a-f]{64}$/);
    expect(proof.body.tree_size).toBe(aRun.receipts.length);
    expect(proof.body.receipts.map((r: any) => r.id)).toEqual(aRun.receipts.map((r: any) => r.id));
    for (const [i, item] of (proof.body.receipts as any[]).entries()) {
      expect(item.receipt).toBe(aRun.receipts[i].receipt);
      expect(item.leaf_hash).toBe(Buffer.from(hashLeaf(new TextEncoder().encode(item.receipt))).toString("hex"));
      expect(verifyReceiptInclusion(item.receipt, i, proof.body.tree_size, item.proof, proof.body.root)).toBe(true);
      expect<string>(await recoverMessageAddress({ message: item.receipt, signature: item.signature as Hex })).toBe(g.h.ctx.signer.address);
    }
    // B's run is a run of its own, with its own receipts.
    expect(bRun.receipts.map((r: any) => r.kind)).toEqual(["inference"]);
    expect(proof.body.receipts.map((r: any) => r.id)).not.toContain(bRun.receipts[0].id);
  });

  test("send_message to another tenant's agent is a tool error the model reads; nothing is delivered", async () => {
    const g = await startAgentsGateway();
    const theirs = otherTenant(g);
    const foreign = await g.h.json("POST", "/v1/agents", { headers: theirs.session, body: { name: "theirs", model: "gpt-test", instructions: "x" } });
    expect(foreign.status).toBe(201);
    const a = await g.createAgent({ name: "a", tools: ["send_message"], instructions: `[[call send_message {"to_agent_id":"${foreign.body.id}","body":"leak"}]]` });
    const trig = await g.session("POST", `/v1/agents/${a.id}/trigger`, { input: "go" });
    const run = await g.finished(a.id, trig.body.id);
    expect(run.status).toBe("succeeded");
    expect(run.steps.map((s: any) => [s.kind, s.status])).toEqual([
      ["model", "succeeded"],
      ["tool", "tool_error"],
      ["model", "succeeded"],
    ]);
    const theirMail = await g.h.json("GET", `/v1/agents/${foreign.body.id}/messages`, { headers: theirs.key });
    expect(theirMail.status).toBe(200);
    expect(theirMail.body.messages).toEqual([]);
    // What the model was told back is the refusal, not a message id.
    const second = g.stub.requests.filter((r) => r.path === "/v1/chat/completions").at(-1)!;
    const toolTurn = second.body.messages.find((m: any) => m.role === "tool");
    expect(toolTurn.content).toContain("error");
    expect(toolTurn.content).not.toContain("msg_");
  });

  test("a burst of 50 with max_runs_per_hour 10: 10 runs per sliding hour, none lost, each message's run_id set when dispatched", async () => {
    const g = await startAgentsGateway();
    const b = await g.createAgent({ name: "busy" });
    const set = await g.session("POST", `/v1/agents/${b.id}/triggers`, { mailbox: true, max_runs_per_hour: 10 });
    expect(set.status).toBe(200);
    expect(set.body.triggers).toEqual({ mailbox: true, max_runs_per_hour: 10 });

    const sent: any[] = [];
    for (let i = 0; i < 50; i++) {
      const r = await send(g, b.id, { subject: `n${i}`, body: `burst message ${i}` });
      expect(r.status).toBe(201);
      sent.push(r.body);
    }
    // The first ten were dispatched as they arrived, the rest wait.
    expect(sent.slice(0, 10).every((m) => typeof m.run_id === "string")).toBe(true);
    expect(sent.slice(10).every((m) => m.run_id === null && m.read_at === null)).toBe(true);
    const pending = g.h.ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM jobs WHERE kind = 'agents.mailbox' AND status = 'pending' AND payload LIKE ?").get(`%${b.id}%`)!.n;
    expect(pending).toBe(1);

    const checkRound = async (dispatched: number) => {
      const runs = await settledRuns(g, b.id, dispatched);
      expect(runs).toHaveLength(dispatched);
      const listed = (await messages(g, b.id)).body.messages as any[];
      // None lost: all 50 stored, in order.
      expect(listed.map((m) => m.id)).toEqual(sent.map((m) => m.id));
      // The oldest `dispatched` have their run, the rest none yet (and are still unread).
      expect(listed.slice(0, dispatched).every((m) => typeof m.run_id === "string" && m.read_at !== null)).toBe(true);
      expect(listed.slice(dispatched).every((m) => m.run_id === null && m.read_at === null)).toBe(true);
      expect((await messages(g, b.id, "?unread_only=true")).body.messages).toHaveLength(50 - dispatched);
      // One run per message, each its own, every one a mailbox run that succeeded with the message as input.
      const byId = new Map(runs.map((r) => [r.id, r]));
      expect(new Set(listed.slice(0, dispatched).map((m) => m.run_id)).size).toBe(dispatched);
      for (const m of listed.slice(0, dispatched)) {
        const run = byId.get(m.run_id);
        expect(run).toMatchObject({ trigger: "mailbox", message_id: m.id, status: "succeeded" });
      }
      // Never more than 10 created in any closed hour of the manual clock.
      const times = runs.map((r) => Date.parse(r.created_at)).sort((x, y) => x - y);
      for (const t of times) expect(times.filter((u) => u >= t && u <= t + HOUR_MS).length).toBeLessThanOrEqual(10);
      return { runs, listed };
    };

    const round0 = await checkRound(10);
    expect(new Set(round0.runs.map((r) => r.created_at))).toEqual(new Set([new Date(g.h.clock.now()).toISOString()]));
    for (let round = 2; round <= 5; round++) {
      // The held messages stay held while the hour of the previous round's runs has not passed…
      g.h.clock.advance(HOUR_MS - 1_000);
      await g.h.ctx.scheduler.runDue();
      await checkRound(10 * (round - 1));
      // …and ten more start once it has.
      g.h.clock.advance(2_000);
      const { runs } = await checkRound(10 * round);
      const now = new Date(g.h.clock.now()).toISOString();
      expect(runs.filter((r) => r.created_at === now)).toHaveLength(10);
      const input = (await g.finished(b.id, runs.at(-1).id)).input;
      expect(input).toContain(`burst message ${10 * round - 1}`);
    }
    // All 50 dispatched: nothing waits, no mailbox job is left.
    const left = g.h.ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM agent_messages WHERE agent_id = ? AND dispatch = 'waiting'").get(b.id)!.n;
    expect(left).toBe(0);
    g.h.clock.advance(2 * HOUR_MS);
    await g.h.ctx.scheduler.runDue();
    expect(await runsOf(g, b.id)).toHaveLength(50);
    const jobs = g.h.ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs WHERE kind = 'agents.mailbox'").get()!.n;
    expect(jobs).toBe(0);
  });

  test("a gated-off agent gets its mail but queues no run", async () => {
    const g = await startAgentsGateway();
    const b = await g.createAgent({ name: "off", enabled: false });
    expect(b.enabled).toBe(false);
    const set = await g.session("POST", `/v1/agents/${b.id}/triggers`, { mailbox: true });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ enabled: false, triggers: { mailbox: true, max_runs_per_hour: null } });

    const r = await send(g, b.id, { body: "while off" });
    expect(r.status).toBe(201);
    expect(r.body.run_id).toBeNull();
    await g.h.ctx.scheduler.runDue();
    expect(await runsOf(g, b.id)).toEqual([]);
    const listed = (await messages(g, b.id, "?unread_only=true")).body.messages;
    expect(listed.map((m: any) => [m.body, m.run_id])).toEqual([["while off", null]]);

    // Gated off after being on: the same.
    const c = await g.createAgent({ name: "was on" });
    await g.session("POST", `/v1/agents/${c.id}/triggers`, { mailbox: true });
    const gate = await g.session("POST", `/v1/agents/${c.id}/gate`, { enabled: false });
    expect(gate.status).toBe(200);
    expect(gate.body.enabled).toBe(false);
    const r2 = await send(g, c.id, { body: "after gating" });
    expect(r2.status).toBe(201);
    expect(r2.body.run_id).toBeNull();
    await g.h.ctx.scheduler.runDue();
    expect(await runsOf(g, c.id)).toEqual([]);

    // On again, a new message runs; the one delivered while off started none.
    await g.session("POST", `/v1/agents/${c.id}/gate`, { enabled: true });
    const r3 = await send(g, c.id, { body: "back on" });
    expect(r3.body.run_id).toMatch(/^run_/);
    const runs = await settledRuns(g, c.id, 1);
    expect(runs.map((x) => [x.trigger, x.message_id, x.status])).toEqual([["mailbox", r3.body.id, "succeeded"]]);
    expect((await messages(g, c.id)).body.messages.map((m: any) => [m.body, m.run_id])).toEqual([
      ["after gating", null],
      ["back on", r3.body.run_id],
    ]);
  });
});
