/**
 * The MCP gateway end to end: a third-party MCP server built with the SDK on 127.0.0.1
 * (test/support/mcp-upstream.ts) registered through /v1/mcp-servers, then driven through
 * POST /v1/mcp/servers/:id by the official SDK client. Allowlisted calls pass and are billed
 * with an action attestation; others are refused before the upstream is dialed; disabled,
 * unknown and foreign servers answer 404; the credential reaches the upstream and never the
 * client; an upstream that fails or lists no tools says so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { canonicalJson } from "../../../src/core/canonical-json.ts";
import { sha256Hex } from "../../../src/core/secrets.ts";
import { bearer, makeHarness } from "../../support/harness.ts";
import { startUpstream, type Upstream } from "../../support/mcp-upstream.ts";
import { serveSvc, type ServedSvc, tenant } from "../../support/mcp-svc.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { connect, text, verifiedReceipt } from "./mcp-support.ts";

const SECRET = "upstream-credential-7f3a9c";
let svc: ServedSvc;
let up: Upstream;
let t: ReturnType<typeof tenant>;

beforeAll(() => {
  svc = serveSvc((c) => (c.mcp.default_price_micro_usd_per_call = 700));
  up = startUpstream({ requireToken: SECRET });
  t = tenant(svc.h, { credit: 1_000_000 });
});
afterAll(() => svc.stop());

async function register(body: Record<string, unknown>, session = t.session) {
  const r = await svc.h.json("POST", "/v1/mcp-servers", { body, headers: bearer(session) });
  if (r.status !== 201) throw new Error(`register: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { id: string; endpoint: string; effective_price_micro_usd_per_call: number };
}

describe("/v1/mcp-servers", () => {
  test("create, list (never the credential), patch, test, delete", async () => {
    const s = await register({ name: "tp", url: up.url, credential: SECRET, allowed_tools: ["echo"], price_micro_usd_per_call: 1500 });
    expect(s.endpoint).toBe(`${svc.base}/v1/mcp/servers/${s.id}`);
    expect(s.effective_price_micro_usd_per_call).toBe(1500);
    const list = await svc.h.json("GET", "/v1/mcp-servers", { headers: bearer(t.session) });
    expect(list.status).toBe(200);
    expect(list.body.default_price_micro_usd_per_call).toBe(700);
    expect(list.body.servers[0]).toMatchObject({ id: s.id, name: "tp", url: up.url, has_credential: true, allowed_tools: ["echo"], enabled: true });
    expect(JSON.stringify(list.body)).not.toContain(SECRET);
    // Sealed at rest: neither the URL nor the credential is in the database in the clear.
    const row = svc.h.ctx.db.query<Record<string, string>, [string]>("SELECT * FROM mcp_servers WHERE id = ?").get(s.id)!;
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(JSON.stringify(row)).not.toContain("127.0.0.1");

    const patched = await svc.h.json("PATCH", `/v1/mcp-servers/${s.id}`, { body: { allowed_tools: ["echo", "add"], price_micro_usd_per_call: null }, headers: bearer(t.session) });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ allowed_tools: ["echo", "add"], price_micro_usd_per_call: null, effective_price_micro_usd_per_call: 700 });

    const tested = await svc.h.json("POST", `/v1/mcp-servers/${s.id}/test`, { headers: bearer(t.session) });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ ok: true, server: { name: "third-party", version: "9.9.9" }, allowed: ["echo", "add"] });
    expect(tested.body.tools.sort()).toEqual(["add", "delete_everything", "echo", "fails"]);

    expect((await svc.h.json("DELETE", `/v1/mcp-servers/${s.id}`, { headers: bearer(t.session) })).body).toEqual({ id: s.id, deleted: true });
    expect((await svc.h.json("DELETE", `/v1/mcp-servers/${s.id}`, { headers: bearer(t.session) })).status).toBe(404);
  });

  test("bad input: unknown fields, a non-URL, a negative price; another tenant's server is 404", async () => {
    const s = await register({ name: "mine", url: up.url });
    for (const body of [
      { name: "x", url: up.url, sneaky: 1 },
      { name: "x", url: "ftp://example.com" },
      { name: "x", url: up.url, price_micro_usd_per_call: -1 },
      { name: "", url: up.url },
    ]) {
      expect((await svc.h.json("POST", "/v1/mcp-servers", { body, headers: bearer(t.session) })).status).toBe(400);
    }
    const other = accountWithSession(svc.h.ctx);
    for (const [method, path] of [
      ["PATCH", `/v1/mcp-servers/${s.id}`],
      ["DELETE", `/v1/mcp-servers/${s.id}`],
      ["POST", `/v1/mcp-servers/${s.id}/test`],
    ] as const) {
      expect((await svc.h.json(method, path, { body: method === "PATCH" ? { name: "stolen" } : undefined, headers: bearer(other.session.token) })).status).toBe(404);
    }
  });

  test("the outbound guard: a private URL is refused unless the operator allows private targets", async () => {
    const h = makeHarness();
    try {
      const { session } = accountWithSession(h.ctx);
      const r = await h.json("POST", "/v1/mcp-servers", { body: { name: "lan", url: "http://127.0.0.1:1/mcp" }, headers: bearer(session.token) });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe("url");
      expect(r.body.error.message).toContain("loopback");
    } finally {
      h.close();
    }
  });
});

describe("POST /v1/mcp/servers/:id", () => {
  test("allowlisted call passes, is billed and receipted with an action attestation; the credential reaches only the upstream", async () => {
    const s = await register({ name: "tp", url: up.url, credential: SECRET, allowed_tools: ["echo", "add"], price_micro_usd_per_call: 1500 });
    const c = await connect(s.endpoint, t.key);
    try {
      expect(c.client.getServerVersion()?.name).toBe("tp");
      const { tools } = await c.client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(["add", "echo"]);
      const before = svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd;
      const args = { text: "hello" };
      const result = await c.client.callTool({ name: "echo", arguments: args });
      expect(text(result)).toBe("echo: hello");
      const receipt = await verifiedReceipt(result, svc.h.ctx.signer.address);
      expect(receipt.kind).toBe("mcp_call");
      expect(receipt.resource).toBe(s.id);
      expect(receipt.cost_micro_usd).toBe(1500);
      const action = receipt.attestations.action;
      expect(action).toMatchObject({ type: "mcp_tool_call", server_id: s.id, tool: "echo", status: "succeeded" });
      expect(action.arguments_sha256).toBe(sha256Hex(canonicalJson(args)));
      const { _meta, ...upstreamResult } = result;
      expect(action.result_sha256).toBe(sha256Hex(canonicalJson(upstreamResult)));
      expect(typeof action.latency_ms).toBe("number");
      expect(JSON.stringify(receipt)).not.toContain("hello");
      expect(svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd).toBe(before - 1500);

      const events = svc.h.ctx.db.query<{ kind: string; cost_micro_usd: number }, [string]>("SELECT kind, cost_micro_usd FROM usage_events WHERE account_id = ? AND kind = 'mcp_call'").all(t.accountId);
      expect(events.some((e) => e.cost_micro_usd === 1500)).toBe(true);

      // The credential went upstream on every request, and none of what the client received holds it.
      expect(up.seen.length).toBeGreaterThan(0);
      expect(up.seen.every((r) => r.authorization === `Bearer ${SECRET}`)).toBe(true);
      expect(c.bodies.join("\n")).not.toContain(SECRET);
    } finally {
      await c.close();
    }
  });

  test("a tool off the allowlist is refused before the upstream is dialed, and costs nothing", async () => {
    const s = await register({ name: "tp", url: up.url, credential: SECRET, allowed_tools: ["echo"] });
    const c = await connect(s.endpoint, t.key);
    try {
      const seenBefore = up.seen.length;
      const before = svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd;
      const refused = await c.client.callTool({ name: "delete_everything", arguments: {} }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).message).toContain('"delete_everything" is not on the allowlist');
      expect(up.seen.length).toBe(seenBefore);
      expect(up.calls("delete_everything")).toEqual([]);
      expect(svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd).toBe(before);
    } finally {
      await c.close();
    }
  });

  test("an upstream tool error is passed on (isError), billed and receipted as tool_error", async () => {
    const s = await register({ name: "tp", url: up.url, credential: SECRET });
    const c = await connect(s.endpoint, t.key);
    try {
      const result = await c.client.callTool({ name: "fails", arguments: {} });
      expect(result.isError).toBe(true);
      const receipt = await verifiedReceipt(result, svc.h.ctx.signer.address);
      expect(receipt.status).toBe("tool_error");
      expect(receipt.cost_micro_usd).toBe(700);
    } finally {
      await c.close();
    }
  });

  test("disabled, unknown and another tenant's servers answer 404", async () => {
    const s = await register({ name: "tp", url: up.url, credential: SECRET, enabled: false });
    const post = (id: string, key = t.key) =>
      fetch(`${svc.base}/v1/mcp/servers/${id}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }),
      });
    expect((await post(s.id)).status).toBe(404);
    expect((await post("mcps_unknown")).status).toBe(404);
    const other = tenant(svc.h, { credit: 1000 });
    const enabled = await register({ name: "tp2", url: up.url, credential: SECRET });
    expect((await post(enabled.id)).status).toBe(200);
    expect((await post(enabled.id, other.key)).status).toBe(404);
    const refused = await connect(`${svc.base}/v1/mcp/servers/${s.id}`, t.key).catch((e: unknown) => e as { code?: number });
    expect((refused as { code?: number }).code).toBe(404);
  });

  test("an upstream that lists no tools, or fails, is an error that says so (never an empty list); a failed call bills nothing", async () => {
    const empty = startUpstream({ noTools: true });
    const down = startUpstream({ failWith: 500 });
    const e = await register({ name: "empty", url: empty.url });
    const d = await register({ name: "down", url: down.url });

    const tested = await svc.h.json("POST", `/v1/mcp-servers/${e.id}/test`, { headers: bearer(t.session) });
    expect(tested.status).toBe(502);
    expect(tested.body.error).toMatchObject({ type: "mcp_upstream_no_tools" });
    const c = await connect(e.endpoint, t.key);
    try {
      const listed = await c.client.listTools().catch((err: unknown) => err);
      expect(listed).toBeInstanceOf(McpError);
      expect((listed as McpError).message).toContain('"empty" lists no tools');
    } finally {
      await c.close();
    }

    const failed = await svc.h.json("POST", `/v1/mcp-servers/${d.id}/test`, { headers: bearer(t.session) });
    expect(failed.status).toBe(502);
    expect(failed.body.error.type).toBe("mcp_upstream_failed");
    const c2 = await connect(d.endpoint, t.key);
    try {
      const before = svc.h.ctx.ledger.balance(t.accountId);
      const call = await c2.client.callTool({ name: "echo", arguments: { text: "x" } }).catch((err: unknown) => err);
      expect(call).toBeInstanceOf(McpError);
      expect((call as McpError).message).toContain("the MCP server");
      const after = svc.h.ctx.ledger.balance(t.accountId);
      expect(after.balance_micro_usd).toBe(before.balance_micro_usd);
      expect(after.held_micro_usd).toBe(0);
    } finally {
      await c2.close();
    }
  });

  test("a changed credential takes effect on the next call (the pooled connection is re-dialled)", async () => {
    const s = await register({ name: "tp", url: up.url, credential: "wrong" });
    const c = await connect(s.endpoint, t.key);
    try {
      expect(await c.client.callTool({ name: "echo", arguments: { text: "a" } }).catch((err: unknown) => err)).toBeInstanceOf(McpError);
      expect((await svc.h.json("PATCH", `/v1/mcp-servers/${s.id}`, { body: { credential: SECRET }, headers: bearer(t.session) })).status).toBe(200);
      expect(text(await c.client.callTool({ name: "echo", arguments: { text: "b" } }))).toBe("echo: b");
    } finally {
      await c.close();
    }
  });
});
