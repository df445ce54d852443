/**
 * POST /v1/mcp with the official MCP SDK client (Streamable HTTP) over real HTTP: discovery of
 * the 401, tools/list by scope, every tool called (credit_balance receipted and verified with
 * viem; the sandbox, state and memory tools in area-tools.test.ts), argument and scope refusals, the transport's refusals in both error shapes, the
 * browser-origin check, and the chat tool through the inference pipeline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { startGateway } from "../inference/inference-support.ts";
import { serveSvc, type ServedSvc, tenant } from "../../support/mcp-svc.ts";
import { connect, text, verifiedReceipt } from "./mcp-support.ts";

let svc: ServedSvc;
let t: ReturnType<typeof tenant>;
beforeAll(() => {
  svc = serveSvc((c) => (c.mcp.tool_price_micro_usd_per_call = 250));
  t = tenant(svc.h, { credit: 1_000_000 });
});
afterAll(() => svc.stop());

const mcpUrl = () => `${svc.base}/v1/mcp`;

describe("authentication", () => {
  test("no credential: 401 with WWW-Authenticate naming the protected resource metadata", async () => {
    const res = await fetch(mcpUrl(), { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${svc.base}/.well-known/oauth-protected-resource/v1/mcp"`);
    const prm = (await (await fetch(`${svc.base}/.well-known/oauth-protected-resource/v1/mcp`)).json()) as any;
    expect(prm.resource).toBe(mcpUrl());
    expect(prm.authorization_servers).toEqual([svc.base]);
  });

  test("a bad or revoked credential: 401 invalid_token in the challenge", async () => {
    const res = await fetch(mcpUrl(), { method: "POST", headers: { authorization: "Bearer sk-svc_nope", "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(res.headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  test("a key without the mcp scope: 403 insufficient_scope", async () => {
    const narrow = tenant(svc.h, { scopes: ["inference"] });
    const res = await fetch(mcpUrl(), { method: "POST", headers: { authorization: `Bearer ${narrow.key}`, "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(403);
    expect((await res.json() as any).error.type).toBe("missing_scope");
    expect(res.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="mcp"');
  });

  test("GET and DELETE answer 405 (stateless: no stream, no session)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(mcpUrl(), { method, headers: { authorization: `Bearer ${t.key}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toContain("POST");
    }
  });
});

describe("tools", () => {
  test("tools/list: each tool with a description and a JSON Schema; chat absent without a chat model", async () => {
    const c = await connect(mcpUrl(), t.key);
    try {
      expect(c.client.getServerVersion()?.name).toBe("svc");
      const { tools } = await c.client.listTools();
      expect(tools.map((x) => x.name)).toEqual(["credit_balance", "sandbox_run", "state_get", "state_set", "state_list", "memory_search"]);
      for (const tool of tools) {
        expect(tool.description!.length).toBeGreaterThan(40);
        expect(tool.inputSchema.type).toBe("object");
      }
      expect(tools.find((x) => x.name === "state_set")!.inputSchema.required).toEqual(["key", "value"]);
    } finally {
      await c.close();
    }
  });

  test("credit_balance: structured balance, metered as mcp_call, receipt in _meta verified with viem", async () => {
    const c = await connect(mcpUrl(), t.key);
    try {
      const before = svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd;
      const result = await c.client.callTool({ name: "credit_balance", arguments: {} });
      expect(result.isError).toBeFalsy();
      const sc = result.structuredContent as { balance_micro_usd: number; key: { id: string } };
      expect(sc.balance_micro_usd).toBe(before);
      expect(sc.key.id).toBe(t.keyId);
      const receipt = await verifiedReceipt(result, svc.h.ctx.signer.address);
      expect(receipt.kind).toBe("mcp_call");
      expect(receipt.cost_micro_usd).toBe(250);
      expect(receipt.key_id).toBe(t.keyId);
      expect(receipt.attestations.action).toMatchObject({ type: "mcp_tool_call", server_id: "svc", tool: "credit_balance", status: "succeeded" });
      expect(receipt.attestations.action.arguments_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd).toBe(before - 250);
    } finally {
      await c.close();
    }
  });

  test("bad arguments and unknown tools are JSON-RPC errors naming them; nothing is billed", async () => {
    const c = await connect(mcpUrl(), t.key);
    try {
      const before = svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd;
      const bad = await c.client.callTool({ name: "state_get", arguments: { key: 5 } }).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(McpError);
      expect((bad as McpError).message).toContain("state_get: key:");
      const unknown = await c.client.callTool({ name: "rm_rf", arguments: {} }).catch((e: unknown) => e);
      expect((unknown as McpError).message).toContain('unknown tool "rm_rf"');
      expect(svc.h.ctx.ledger.balance(t.accountId).balance_micro_usd).toBe(before);
    } finally {
      await c.close();
    }
  });

  test("scopes apply: a key with mcp alone lists no credit tool and may not call it", async () => {
    const narrow = tenant(svc.h, { scopes: ["mcp", "state"], credit: 1000 });
    const c = await connect(mcpUrl(), narrow.key);
    try {
      const { tools } = await c.client.listTools();
      expect(tools.map((x) => x.name)).toEqual(["state_get", "state_set", "state_list"]);
      const refused = await c.client.callTool({ name: "credit_balance", arguments: {} }).catch((e: unknown) => e);
      expect((refused as McpError).message).toContain('needs the "billing:read" scope');
    } finally {
      await c.close();
    }
  });

  test("no credit: the meter's refusal is a JSON-RPC error naming insufficient_credit", async () => {
    const broke = tenant(svc.h);
    const c = await connect(mcpUrl(), broke.key);
    try {
      const refused = (await c.client.callTool({ name: "credit_balance", arguments: {} }).catch((e: unknown) => e)) as McpError;
      expect(refused).toBeInstanceOf(McpError);
      expect((refused.data as { type: string }).type).toBe("insufficient_credit");
    } finally {
      await c.close();
    }
  });
});

describe("the transport's own answers", () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(mcpUrl(), { method: "POST", headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(body) });

  test("a notification answers 202; a request without the Accept the transport requires answers 406 in both error shapes", async () => {
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const res = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { accept: "application/json" });
    expect(res.status).toBe(406);
    const body = (await res.json()) as any;
    expect(body.jsonrpc).toBe("2.0");
    expect(body.error).toMatchObject({ type: "not_acceptable", code: -32000 });
  });

  test("a browser Origin other than svc's own is refused (DNS rebinding)", async () => {
    const res = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: "http://evil.example" });
    expect(res.status).toBe(403);
    expect((await res.json() as any).error.type).toBe("origin_not_allowed");
    expect((await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { origin: svc.base })).status).toBe(200);
  });
});

describe("chat, when a default model is configured", () => {
  test("answers through the inference pipeline; the inference receipt rides in _meta", async () => {
    const g = await startGateway({ harness: { config: (c) => (c.mcp.chat_model = "gpt-test") } });
    try {
      const c = await connect(`${g.url}/v1/mcp`, g.key);
      try {
        const { tools } = await c.client.listTools();
        expect(tools.map((x) => x.name)).toContain("chat");
        const result = await c.client.callTool({ name: "chat", arguments: { messages: [{ role: "user", content: "hello there" }], max_tokens: 50 } });
        expect(result.isError).toBeFalsy();
        expect(text(result).length).toBeGreaterThan(0);
        const receipt = await verifiedReceipt(result, g.h.ctx.signer.address);
        expect(receipt.kind).toBe("inference");
        expect(receipt.resource).toBe("gpt-test");
        expect(receipt.cost_micro_usd).toBeGreaterThan(0);
      } finally {
        await c.close();
      }
    } finally {
      await g.stop();
    }
  });
});

describe("served as the OpenAPI document says (the harness checks every answer)", () => {
  test("initialize, a tools/call, a notification, a transport refusal, no credential, an unknown gateway server", async () => {
    const h = svc.h;
    const headers = { authorization: `Bearer ${t.key}`, accept: "application/json, text/event-stream" };
    const init = await h.json("POST", "/v1/mcp", { headers, body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "h", version: "1" } } } });
    expect(init.status).toBe(200);
    expect(init.body.result.serverInfo.name).toBe("svc");
    const call = await h.json("POST", "/v1/mcp", { headers, body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "credit_balance", arguments: {} } } });
    expect(call.body.result._meta["svc/receipt"].id).toMatch(/^rcpt_/);
    expect((await h.json("POST", "/v1/mcp", { headers, body: { jsonrpc: "2.0", method: "notifications/initialized" } })).status).toBe(202);
    expect((await h.json("POST", "/v1/mcp", { headers: { ...headers, accept: "text/html" }, body: { jsonrpc: "2.0", id: 3, method: "ping" } })).status).toBe(406);
    expect((await h.json("POST", "/v1/mcp", { body: { jsonrpc: "2.0", id: 4, method: "ping" } })).status).toBe(401);
    expect((await h.json("POST", "/v1/mcp/servers/mcps_nope", { headers, body: { jsonrpc: "2.0", id: 5, method: "ping" } })).status).toBe(404);
    expect((await h.json("POST", "/v1/mcp", { headers, raw: "{not json", })).status).toBe(400);
  });
});
