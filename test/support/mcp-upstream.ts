/**
 * A third-party MCP server for the gateway's tests and bench, built with the official SDK
 * (McpServer, tools registered with zod) over its web-standard Streamable HTTP transport, served
 * by Bun on 127.0.0.1. It records every HTTP request it sees (method, JSON-RPC method, tool
 * name, Authorization header), so a test can assert what reached it — and what did not.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";

export interface SeenRequest {
  method: string;
  rpc: string | null;
  tool: string | null;
  authorization: string | null;
}

export interface Upstream {
  url: string;
  seen: SeenRequest[];
  /** Requests whose JSON-RPC method was tools/call, by tool name. */
  calls(tool?: string): SeenRequest[];
  stop(): void;
}

export interface UpstreamOptions {
  /** Serve no tools at all (the gateway must say so, not answer an empty list). */
  noTools?: boolean;
  /** Answer every request with this HTTP status instead. */
  failWith?: number;
  /** Require this bearer token (401 otherwise). */
  requireToken?: string;
}

function buildServer(options: UpstreamOptions): McpServer {
  const server = new McpServer({ name: "third-party", version: "9.9.9" });
  if (options.noTools) {
    // Declares the tools capability, lists nothing.
    server.server.registerCapabilities({ tools: {} });
    server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
    return server;
  }
  server.registerTool("echo", { description: "Echo a text", inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }));
  server.registerTool("add", { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  server.registerTool("delete_everything", { description: "A tool nobody should allow", inputSchema: {} }, () => ({ content: [{ type: "text", text: "deleted" }] }));
  server.registerTool("fails", { description: "Always a tool error", inputSchema: {} }, () => ({ content: [{ type: "text", text: "it broke" }], isError: true }));
  return server;
}

/** Starts the upstream (bench/mcp.ts runs it in a process of its own); startUpstream also stops it after the test file. */
export function serveUpstream(options: UpstreamOptions = {}, port = 0): Upstream {
  const seen: SeenRequest[] = [];
  const http = Bun.serve({
    hostname: "127.0.0.1",
    port,
    async fetch(request) {
      let body: unknown;
      if (request.method === "POST") body = await request.clone().json().catch(() => undefined);
      const message = (Array.isArray(body) ? body[0] : body) as { method?: string; params?: { name?: string } } | undefined;
      seen.push({
        method: request.method,
        rpc: message?.method ?? null,
        tool: message?.method === "tools/call" ? (message.params?.name ?? null) : null,
        authorization: request.headers.get("authorization"),
      });
      if (options.failWith) return new Response("upstream is down", { status: options.failWith });
      if (options.requireToken && request.headers.get("authorization") !== `Bearer ${options.requireToken}`) return new Response("unauthorized", { status: 401 });
      // Stateless: a fresh server and transport per request, as the SDK's stateless mode asks.
      const server = buildServer(options);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(request, body === undefined ? {} : { parsedBody: body });
      } finally {
        await server.close();
      }
    },
  });
  const stop = () => http.stop(true);
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    seen,
    calls: (tool) => seen.filter((s) => s.rpc === "tools/call" && (tool === undefined || s.tool === tool)),
    stop,
  };
}

export function startUpstream(options: UpstreamOptions = {}): Upstream {
  const upstream = serveUpstream(options);
  // Imported here, not at the top: bench/mcp.ts loads this file outside the test runner.
  void import("./cleanup.ts").then(({ onCleanup }) => onCleanup(upstream.stop));
  return upstream;
}
