/**
 * One MCP HTTP request, served by an official SDK server over its web-standard Streamable HTTP
 * transport (WebStandardStreamableHTTPServerTransport: Request in, Response out; no Node http,
 * no hand-written JSON-RPC framing).
 *
 * Stateless and in JSON mode: every POST carries its own credential and gets one JSON answer, so
 * nothing lives in memory between requests (a restart or a second process loses no session),
 * and there is no GET stream or session to DELETE (both answer 405, which the Streamable HTTP
 * specification allows). A fresh server and transport per request is what the SDK's stateless
 * mode requires; both are cheap (bench/mcp.ts).
 *
 * The body was already read, bounded and checked by the app's body hook (core/body.ts); it is
 * handed to the transport as parsedBody. A refusal the transport answers itself (406, 415, 400
 * …) is a JSON-RPC error; svc adds `type` to its error object, so the one body is both a
 * JSON-RPC error and svc's error shape.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

const TRANSPORT_ERROR_TYPES: Record<number, string> = {
  400: "invalid_mcp_request",
  404: "not_found",
  405: "method_not_allowed",
  406: "not_acceptable",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

async function typed(res: Response): Promise<Response> {
  if (res.status < 400) return res;
  const text = await res.text();
  let body: { error?: Record<string, unknown> } & Record<string, unknown>;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = { jsonrpc: "2.0", id: null, error: { code: -32000, message: text || `HTTP ${res.status}` } };
  }
  const error = body.error && typeof body.error === "object" ? body.error : { code: -32000, message: `HTTP ${res.status}` };
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify({ ...body, error: { type: TRANSPORT_ERROR_TYPES[res.status] ?? "invalid_mcp_request", ...error } }), { status: res.status, headers });
}

export async function serveMcpRequest(server: Server, request: Request, body: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    // An empty body reaches us as undefined: let the transport read (and refuse) it itself.
    return await typed(await transport.handleRequest(request, body === undefined ? {} : { parsedBody: body }));
  } finally {
    await server.close();
  }
}
