/**
 * Inbound hooks of hosted agents, over real HTTP (POST /v1/agents/:id/hooks/:token), with the
 * scheduler running so a queued run really executes against the upstream stand-in:
 *
 * - a call answers 202 with the run id; the run finishes with the raw body as its input
 *   (trigger "hook"), whatever the content type;
 * - a wrong, rotated, disabled, gated-off, deleted or another tenant's token answers one and the
 *   same 404, byte for byte;
 * - once a secret is set, a call must carry a fresh X-Svc-Timestamp and a matching
 *   X-Svc-Signature (HMAC-SHA256 over "<timestamp>.<raw body>"), else 401 invalid_signature,
 *   and a signature is accepted once only (a replay is 401); removing the secret lifts that;
 * - a body above agents.hook_max_body_bytes is refused 413 and queues nothing; each token has its
 *   own rate limit (429 with Retry-After);
 * - the session routes that manage the hook refuse an API key or no credential (401), answer 404
 *   for another tenant's agent, and refuse bad bodies by name; svc keeps only the token's sha256
 *   and the secret sealed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { sha256Hex } from "../../../src/core/secrets.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { type AgentsGateway, startAgentsGateway } from "./agents-support.ts";

let g: AgentsGateway;
beforeAll(async () => {
  g = await startAgentsGateway();
});
afterAll(() => g.stop());

interface Hook {
  agentId: string;
  /** The URL's path (the harness's public_url is not where the test server listens). */
  path: string;
  token: string;
}

type Answer = { status: number; text: string; body: any; headers: Headers };

/** A fresh agent of the test account with a live hook. */
async function agentWithHook(gw: AgentsGateway = g, body: Record<string, unknown> = {}): Promise<Hook> {
  const agent = await gw.createAgent({ name: "hooked", ...body });
  return rotate(gw, agent.id);
}

async function rotate(gw: AgentsGateway, agentId: string): Promise<Hook> {
  const r = await gw.session("POST", `/v1/agents/${agentId}/hooks/rotate`);
  if (r.status !== 200) throw new Error(`rotate: ${r.status} ${JSON.stringify(r.body)}`);
  const path = new URL(r.body.url).pathname;
  return { agentId, path, token: path.split("/").at(-1)! };
}

/** POSTs to a hook path over real HTTP, as an outside sender would. */
async function callHook(gw: AgentsGateway, path: string, raw: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: raw });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, text, body, headers: res.headers };
}

const sign = (secret: string, stamp: number | string, raw: string) => `sha256=${createHmac("sha256", secret).update(`${stamp}.${raw}`).digest("hex")}`;
/** svc's clock in unix seconds (the harness clock is manual). */
const stampOf = (gw: AgentsGateway) => Math.floor(gw.h.clock.now() / 1000);
const signed = (gw: AgentsGateway, secret: string, raw: string, stamp = stampOf(gw)) => ({ "x-svc-timestamp": String(stamp), "x-svc-signature": sign(secret, stamp, raw) });

async function runsOf(gw: AgentsGateway, agentId: string): Promise<any[]> {
  const r = await gw.session("GET", `/v1/agents/${agentId}/runs`);
  if (r.status !== 200) throw new Error(`GET runs: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.runs;
}

async function setSecret(gw: AgentsGateway, agentId: string, body: Record<string, unknown> = {}) {
  const r = await gw.session("POST", `/v1/agents/${agentId}/hooks/secret`, body);
  if (r.status !== 200) throw new Error(`secret: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { agent_id: string; secret: string | null; signed: boolean };
}

describe("POST /v1/agents/:id/hooks/:token", () => {
  test("a JSON call answers 202 with the run id, and the run finishes with the raw body as its input", async () => {
    const hook = await agentWithHook();
    // Odd spacing: the input is the bytes sent, not a re-serialised object.
    const raw = '{"event":  "push", "ref": "refs/heads/main",\n "commits": [1, 2]}';
    const r = await callHook(g, hook.path, raw, { "content-type": "application/json" });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ run_id: expect.stringMatching(/^run_/), agent_id: hook.agentId, status: "queued" });

    const run = await g.finished(hook.agentId, r.body.run_id);
    expect(run).toMatchObject({ id: r.body.run_id, agent_id: hook.agentId, status: "succeeded", trigger: "hook", input: raw, error: null });
    expect(run.output).toStartWith("reply to: ");
    expect(run.started_at).not.toBeNull();
    expect(run.steps.map((s: any) => [s.kind, s.name, s.status])).toEqual([["model", "gpt-test", "succeeded"]]);
    // The model saw the body as the run's user message.
    const sent = g.stub.requests.filter((q) => q.path === "/v1/chat/completions").map((q) => q.body.messages);
    expect(sent.some((m) => m.at(-1)?.role === "user" && m.at(-1)?.content === raw)).toBe(true);
    expect((await runsOf(g, hook.agentId)).map((x) => [x.id, x.trigger])).toEqual([[r.body.run_id, "hook"]]);
  });

  test("a text/plain call is taken as it is, and the answer names a run of this agent only", async () => {
    const hook = await agentWithHook();
    const raw = "deploy finished: 3 services, 0 failures\n  (indented line kept)";
    const r = await callHook(g, hook.path, raw, { "content-type": "text/plain; charset=utf-8" });
    expect(r.status).toBe(202);
    const run = await g.finished(hook.agentId, r.body.run_id);
    expect(run).toMatchObject({ status: "succeeded", trigger: "hook", input: raw });
    // The run belongs to the hook's agent: another agent of the account does not list it.
    const other = await g.createAgent({ name: "bystander" });
    expect((await g.session("GET", `/v1/agents/${other.id}/runs/${r.body.run_id}`)).status).toBe(404);
  });

  test("any body is taken as the input, byte for byte: JSON of every kind, a form, bytes, nothing", async () => {
    const hook = await agentWithHook();
    const cases: [string, string, string][] = [
      ["a JSON array (batched events)", "application/json", '[{"event": "delivered"}, {"event": "open"}]'],
      ["a JSON string", "application/json", '"just a string"'],
      ["JSON null", "application/json", "null"],
      ["a JSON number", "application/vnd.github+json", "42"],
      ["a form", "application/x-www-form-urlencoded", "a=1&b=two+words"],
      ["bytes", "application/octet-stream", "plain bytes, valid UTF-8 ✓"],
      ["an empty body", "text/plain", ""],
    ];
    for (const [what, type, raw] of cases) {
      const r = await callHook(g, hook.path, raw, { "content-type": type });
      expect({ what, status: r.status }).toEqual({ what, status: 202 });
      const run = await g.finished(hook.agentId, r.body.run_id);
      expect({ what, status: run.status, input: run.input }).toEqual({ what, status: "succeeded", input: raw });
    }
  });

  test("wrong, rotated, disabled, gated-off, deleted and other tenants' tokens all answer the same 404", async () => {
    const live = await agentWithHook();
    const rotatedOld = await agentWithHook();
    const rotatedNew = await rotate(g, rotatedOld.agentId);
    const disabled = await agentWithHook();
    expect((await g.session("POST", `/v1/agents/${disabled.agentId}/hooks/disable`)).body.hook).toEqual({ enabled: false, signed: false });
    const gated = await agentWithHook();
    expect((await g.session("POST", `/v1/agents/${gated.agentId}/gate`, { enabled: false })).status).toBe(200);
    const deleted = await agentWithHook();
    expect((await g.session("DELETE", `/v1/agents/${deleted.agentId}`)).status).toBe(200);

    // Another tenant with an agent and a live hook of its own.
    const other = accountWithSession(g.h.ctx);
    const theirs = await g.h.json("POST", "/v1/agents", { headers: bearer(other.session.token), body: { name: "theirs", model: "gpt-test", instructions: "Be brief." } });
    expect(theirs.status).toBe(201);
    const theirHook = await g.h.json("POST", `/v1/agents/${theirs.body.id}/hooks/rotate`, { headers: bearer(other.session.token) });
    const theirToken = new URL(theirHook.body.url).pathname.split("/").at(-1)!;

    const cases: [string, string][] = [
      ["a wrong token", `/v1/agents/${live.agentId}/hooks/ahk_${"A".repeat(43)}`],
      ["a token that is not even shaped like one", `/v1/agents/${live.agentId}/hooks/x`],
      ["an unknown agent", `/v1/agents/agt_doesnotexist/hooks/${live.token}`],
      ["another agent's token", `/v1/agents/${live.agentId}/hooks/${rotatedNew.token}`],
      ["the token before a rotate", rotatedOld.path],
      ["a disabled hook", disabled.path],
      ["a gated-off agent", gated.path],
      ["a deleted agent", deleted.path],
      ["another tenant's token on our agent", `/v1/agents/${live.agentId}/hooks/${theirToken}`],
      ["our token on another tenant's agent", `/v1/agents/${theirs.body.id}/hooks/${live.token}`],
    ];
    const answers: Answer[] = [];
    for (const [what, path] of cases) {
      const r = await callHook(g, path, '{"probe": true}');
      expect({ what, status: r.status }).toEqual({ what, status: 404 });
      answers.push(r);
    }
    expect(new Set(answers.map((a) => a.text))).toEqual(new Set([answers[0]!.text]));
    expect(new Set(answers.map((a) => a.headers.get("content-type")))).toEqual(new Set([answers[0]!.headers.get("content-type")]));
    expect(answers[0]!.body).toEqual({ error: { type: "not_found", message: "hook not found" } });

    // None of them queued anything; the live tokens still work.
    for (const h of [live, rotatedOld, disabled, gated]) expect(await runsOf(g, h.agentId)).toEqual([]);
    expect((await runsOf(g, deleted.agentId)).length).toBe(0);
    const ok = await callHook(g, rotatedNew.path, "{}");
    expect(ok.status).toBe(202);
    await g.finished(rotatedNew.agentId, ok.body.run_id);
    const theirsOk = await callHook(g, `/v1/agents/${theirs.body.id}/hooks/${theirToken}`, "{}");
    expect(theirsOk.status).toBe(202);
  });

  test("gating an agent back on revives its token; a rotate after a disable gives a working one", async () => {
    const gated = await agentWithHook();
    await g.session("POST", `/v1/agents/${gated.agentId}/gate`, { enabled: false });
    expect((await callHook(g, gated.path, "{}")).status).toBe(404);
    await g.session("POST", `/v1/agents/${gated.agentId}/gate`, { enabled: true });
    const revived = await callHook(g, gated.path, "{}");
    expect(revived.status).toBe(202);
    await g.finished(gated.agentId, revived.body.run_id);

    const disabled = await agentWithHook();
    await g.session("POST", `/v1/agents/${disabled.agentId}/hooks/disable`);
    const fresh = await rotate(g, disabled.agentId);
    expect(fresh.token).not.toBe(disabled.token);
    expect((await callHook(g, disabled.path, "{}")).status).toBe(404);
    const r = await callHook(g, fresh.path, "{}");
    expect(r.status).toBe(202);
    await g.finished(disabled.agentId, r.body.run_id);
  });
});

describe("signed hooks", () => {
  test("once a secret is set, only a fresh, matching signature gets through", async () => {
    const hook = await agentWithHook();
    const { secret, signed: isSigned } = await setSecret(g, hook.agentId);
    expect(isSigned).toBe(true);
    expect(secret).toMatch(/^ahs_/);
    const raw = '{"action": "opened", "number": 7}';
    const now = stampOf(g);

    const bad: [string, Record<string, string>][] = [
      ["no signature headers", {}],
      ["a timestamp only", { "x-svc-timestamp": String(now) }],
      ["a signature only", { "x-svc-signature": sign(secret!, now, raw) }],
      ["another secret's signature", signed(g, "ahs_not-the-secret", raw)],
      ["a signature over another body", { "x-svc-timestamp": String(now), "x-svc-signature": sign(secret!, now, `${raw} `) }],
      ["a signature over another timestamp", { "x-svc-timestamp": String(now), "x-svc-signature": sign(secret!, now - 1, raw) }],
      ["the hex without sha256=", { "x-svc-timestamp": String(now), "x-svc-signature": sign(secret!, now, raw).slice("sha256=".length) }],
      ["a timestamp in milliseconds", signed(g, secret!, raw, g.h.clock.now())],
      ["a timestamp that is not a number", { "x-svc-timestamp": "yesterday", "x-svc-signature": sign(secret!, "yesterday", raw) }],
      ["a timestamp 6 minutes ahead", signed(g, secret!, raw, now + 360)],
    ];
    for (const [what, headers] of bad) {
      const r = await callHook(g, hook.path, raw, headers);
      expect({ what, status: r.status, type: r.body?.error?.type }).toEqual({ what, status: 401, type: "invalid_signature" });
    }

    const okHeaders = signed(g, secret!, raw);
    const ok = await callHook(g, hook.path, raw, okHeaders);
    expect(ok.status).toBe(202);
    // The same signed request a second time is a replay: refused, though inside the window.
    const replay = await callHook(g, hook.path, raw, okHeaders);
    expect(replay.status).toBe(401);
    expect(replay.body.error.message).toContain("already accepted");
    const run = await g.finished(hook.agentId, ok.body.run_id);
    expect(run).toMatchObject({ status: "succeeded", trigger: "hook", input: raw });
    // The refused calls queued nothing.
    expect((await runsOf(g, hook.agentId)).map((x) => x.id)).toEqual([ok.body.run_id]);
  });

  test("a signature older than 5 minutes by svc's clock is refused", async () => {
    const hook = await agentWithHook();
    const { secret } = await setSecret(g, hook.agentId);
    const raw = "ping";
    const stamp = stampOf(g);
    const headers = signed(g, secret!, raw, stamp);
    g.h.clock.advance(6 * 60_000);
    const stale = await callHook(g, hook.path, raw, { ...headers, "content-type": "text/plain" });
    expect(stale.status).toBe(401);
    expect(stale.body.error).toMatchObject({ type: "invalid_signature", message: expect.stringContaining("300 seconds") });
    // The same body signed now passes.
    const fresh = await callHook(g, hook.path, raw, { ...signed(g, secret!, raw), "content-type": "text/plain" });
    expect(fresh.status).toBe(202);
    await g.finished(hook.agentId, fresh.body.run_id);
  });

  test("a rotate keeps the secret, a new secret retires the old one, and removing it lets unsigned calls through again", async () => {
    const hook = await agentWithHook();
    const first = (await setSecret(g, hook.agentId)).secret!;
    const rotated = await g.session("POST", `/v1/agents/${hook.agentId}/hooks/rotate`);
    expect(rotated.body.signed).toBe(true);
    const path = new URL(rotated.body.url).pathname;
    expect((await callHook(g, path, "{}")).status).toBe(401);

    const second = (await setSecret(g, hook.agentId)).secret!;
    expect(second).not.toBe(first);
    expect((await callHook(g, path, "{}", signed(g, first, "{}"))).status).toBe(401);
    const ok = await callHook(g, path, "{}", signed(g, second, "{}"));
    expect(ok.status).toBe(202);
    await g.finished(hook.agentId, ok.body.run_id);

    expect(await setSecret(g, hook.agentId, { remove: true })).toEqual({ agent_id: hook.agentId, secret: null, signed: false });
    const list = await g.session("GET", "/v1/agents");
    expect(list.body.agents.find((a: any) => a.id === hook.agentId).hook).toEqual({ enabled: true, signed: false });
    const unsigned = await callHook(g, path, "{}");
    expect(unsigned.status).toBe(202);
    await g.finished(hook.agentId, unsigned.body.run_id);
  });

  test("svc keeps only the token's sha256 and the secret sealed", async () => {
    const hook = await agentWithHook();
    const { secret } = await setSecret(g, hook.agentId);
    const row = g.h.ctx.db.query<Record<string, unknown>, [string]>("SELECT * FROM agents WHERE id = ?").get(hook.agentId)!;
    expect(row.hook_token_sha256).toBe(sha256Hex(hook.token));
    expect(JSON.stringify(row)).not.toContain(hook.token);
    expect(JSON.stringify(row)).not.toContain(secret!);
    // Neither is shown again.
    const list = await g.session("GET", "/v1/agents");
    expect(JSON.stringify(list.body)).not.toContain(hook.token);
    expect(JSON.stringify(list.body)).not.toContain(secret!);
  });
});

describe("size and rate limits", () => {
  let lim: AgentsGateway;
  beforeAll(async () => {
    lim = await startAgentsGateway({
      harness: {
        config: (c) => {
          c.agents.hook_max_body_bytes = 2048;
          c.agents.hook_burst = 3;
          c.agents.hook_per_minute = 6;
        },
      },
    });
  });
  afterAll(() => lim.stop());

  test("a body above agents.hook_max_body_bytes is refused 413 and queues nothing; one at the limit passes", async () => {
    const hook = await agentWithHook(lim);
    const over = await callHook(lim, hook.path, "x".repeat(2049), { "content-type": "text/plain" });
    expect(over.status).toBe(413);
    expect(over.body.error).toMatchObject({ type: "payload_too_large", limit_bytes: 2048 });
    expect(await runsOf(lim, hook.agentId)).toEqual([]);

    const at = "y".repeat(2048);
    const ok = await callHook(lim, hook.path, at, { "content-type": "text/plain" });
    expect(ok.status).toBe(202);
    expect((await lim.finished(hook.agentId, ok.body.run_id)).input).toBe(at);
  });

  test("a burst beyond hook_burst gets 429 with Retry-After; other tokens are unaffected; the bucket refills", async () => {
    const hook = await agentWithHook(lim);
    const queued: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await callHook(lim, hook.path, `{"n": ${i}}`);
      expect(r.status).toBe(202);
      queued.push(r.body.run_id);
    }
    const limited = await callHook(lim, hook.path, '{"n": 3}');
    expect(limited.status).toBe(429);
    // 6 per minute: one token every 10 s.
    expect(limited.headers.get("retry-after")).toBe("10");
    expect(limited.body.error).toMatchObject({ type: "rate_limited", retry_after_secs: 10 });

    const bystander = await agentWithHook(lim);
    const other = await callHook(lim, bystander.path, "{}");
    expect(other.status).toBe(202);
    queued.push(other.body.run_id);

    lim.h.clock.advance(10_000);
    const refilled = await callHook(lim, hook.path, '{"n": 4}');
    expect(refilled.status).toBe(202);
    expect((await callHook(lim, hook.path, '{"n": 5}')).status).toBe(429);
    queued.push(refilled.body.run_id);

    // Exactly the accepted calls became runs.
    expect((await runsOf(lim, hook.agentId)).length).toBe(4);
    for (const id of queued) {
      const agentId = id === other.body.run_id ? bystander.agentId : hook.agentId;
      expect((await lim.finished(agentId, id)).status).toBe("succeeded");
    }
  });

  test("every answer of the hook route is one its OpenAPI entry declares", async () => {
    // Through the harness: each answer is checked against the served OpenAPI document.
    lim.h.clock.advance(60_000);
    const hook = await agentWithHook(lim);
    const send = (path: string, raw: string, headers: Record<string, string> = {}) =>
      lim.h.json("POST", path, { raw, headers: { "content-type": "application/json", ...headers } });
    const accepted = await send(hook.path, "{}");
    expect(accepted.status).toBe(202);
    expect((await send(`/v1/agents/${hook.agentId}/hooks/ahk_wrong`, "{}")).status).toBe(404);
    expect((await send(hook.path, JSON.stringify({ pad: "z".repeat(3000) }))).status).toBe(413);
    const { secret } = await setSecret(lim, hook.agentId);
    expect((await send(hook.path, "{}")).status).toBe(401);
    expect((await send(hook.path, "{}", signed(lim, secret!, "{}"))).status).toBe(429);
    await lim.finished(hook.agentId, accepted.body.run_id);
  });
});

describe("managing the hook (session routes)", () => {
  const routes = (agentId: string): [string, unknown][] => [
    [`/v1/agents/${agentId}/hooks/rotate`, undefined],
    [`/v1/agents/${agentId}/hooks/disable`, undefined],
    [`/v1/agents/${agentId}/hooks/secret`, {}],
  ];

  test("an API key or no credential is refused 401", async () => {
    const agent = await g.createAgent({ name: "managed" });
    for (const [path, body] of routes(agent.id)) {
      const keyed = await g.keyed("POST", path, body);
      expect({ path, status: keyed.status }).toEqual({ path, status: 401 });
      const anonymous = await g.h.json("POST", path, body === undefined ? {} : { body });
      expect({ path, status: anonymous.status }).toEqual({ path, status: 401 });
    }
    // Nothing changed: the agent still has no hook.
    const list = await g.session("GET", "/v1/agents");
    expect(list.body.agents.find((a: any) => a.id === agent.id).hook).toEqual({ enabled: false, signed: false });
  });

  test("another tenant's agent, an unknown and a deleted agent answer 404", async () => {
    const ours = await agentWithHook();
    const other = accountWithSession(g.h.ctx);
    for (const [path, body] of routes(ours.agentId)) {
      const r = await g.h.json("POST", path, { headers: bearer(other.session.token), ...(body === undefined ? {} : { body }) });
      expect({ path, status: r.status }).toEqual({ path, status: 404 });
    }
    // Their attempts changed nothing: our token still works.
    const r = await callHook(g, ours.path, "{}");
    expect(r.status).toBe(202);
    await g.finished(ours.agentId, r.body.run_id);

    const deleted = await g.createAgent({ name: "gone" });
    await g.session("DELETE", `/v1/agents/${deleted.id}`);
    for (const id of ["agt_doesnotexist", deleted.id]) {
      for (const [path, body] of routes(id)) {
        expect({ path, status: (await g.session("POST", path, body)).status }).toEqual({ path, status: 404 });
      }
    }
  });

  test("bad secret bodies are refused 400 naming the field", async () => {
    const agent = await g.createAgent({ name: "strict" });
    const cases: [unknown, string][] = [
      [{ remove: "yes" }, "remove"],
      [{ remove: 1 }, "remove"],
      [{ rotate: true }, "rotate"],
    ];
    for (const [body, param] of cases) {
      const r = await g.session("POST", `/v1/agents/${agent.id}/hooks/secret`, body);
      expect({ body, status: r.status, param: r.body?.error?.param }).toEqual({ body, status: 400, param });
    }
    const list = await g.session("GET", "/v1/agents");
    expect(list.body.agents.find((a: any) => a.id === agent.id).hook.signed).toBe(false);
  });
});
