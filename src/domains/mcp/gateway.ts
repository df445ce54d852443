/**
 * POST /v1/mcp/servers/:id: an MCP server (the SDK's) standing in front of the account's
 * registered upstream, speaking MCP to the caller and to the upstream (the SDK's client).
 *
 *   initialize   answered by svc (serverInfo names the registered server; capabilities: tools)
 *   tools/list   the upstream's tools, filtered to the allowlist; an upstream that fails or
 *                lists no tool is an error, never a silently empty list
 *   tools/call   the allowlist is checked BEFORE the upstream is dialed; then reserve the
 *                per-call price, call, settle as an mcp_call event whose receipt carries an
 *                action attestation (server id, tool name, sha256 of the arguments and of the
 *                result, status, latency; no content); the receipt rides in the result's _meta.
 *                An upstream that could not be reached bills nothing (release).
 *
 * The upstream's credential is sent only upstream; nothing of it reaches the caller.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, type CallToolResult, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import type { ApiKeyPrincipal } from "../keys/index.ts";
import { fingerprint, meterCall, withReceipt } from "./metering.ts";
import { type OpenedServer, openServer } from "./servers.ts";
import { serveMcpRequest } from "./transport.ts";
import { UpstreamFailed, upstreamCall, upstreamTools } from "./upstream.ts";

const upstreamError = (err: unknown): McpError =>
  err instanceof McpError ? err : new McpError(ErrorCode.InternalError, err instanceof UpstreamFailed ? err.message : "the MCP server could not be reached");

/** A refusal of the meter (402 insufficient credit, spend cap, breaker; 403 key refused) as a JSON-RPC error naming its type. */
export const meterError = (err: unknown): McpError | unknown =>
  err instanceof ApiError ? new McpError(ErrorCode.InvalidRequest, err.message, { type: err.type, status: err.status, ...err.extra }) : err;

/** The upstream's tools, filtered to the allowlist; an upstream that fails or lists no (allowed) tool is an McpError, never a silently empty list. */
export async function gatewayTools(ctx: Context, upstream: OpenedServer, signal: AbortSignal): Promise<Tool[]> {
  let listed: Awaited<ReturnType<typeof upstreamTools>>;
  try {
    listed = await upstreamTools(ctx, upstream, signal);
  } catch (err) {
    throw upstreamError(err);
  }
  if (listed.tools.length === 0) throw new McpError(ErrorCode.InternalError, `the MCP server "${upstream.row.name}" lists no tools`);
  const tools = listed.tools.filter((t) => allowedTool(upstream, t.name));
  if (tools.length === 0) throw new McpError(ErrorCode.InternalError, `none of the tools the MCP server "${upstream.row.name}" lists is on its allowlist (${upstream.allowedTools?.join(", ")})`);
  return tools;
}

const allowedTool = (upstream: OpenedServer, name: string) => upstream.allowedTools === null || upstream.allowedTools.includes(name);

/**
 * tools/call through the gateway: the allowlist first (a refused tool never reaches the upstream
 * and costs nothing), then reserve, call, settle with the action attestation; the receipt rides
 * in the result's _meta and chains into `runId` when given.
 */
export async function callGatewayTool(
  ctx: Context,
  principal: ApiKeyPrincipal,
  upstream: OpenedServer,
  call: { name: string; arguments: Record<string, unknown>; runId?: string | null },
  signal: AbortSignal,
): Promise<CallToolResult> {
  const { name } = call;
  const args = call.arguments;
  if (!allowedTool(upstream, name)) throw new McpError(ErrorCode.InvalidParams, `tool "${name}" is not on the allowlist of the MCP server "${upstream.row.name}"`);
  const started = performance.now();
  const outcome = await meterCall(
    ctx,
    { principal, price: upstream.price, resource: upstream.row.id, runId: call.runId },
    async () => {
      const result = await upstreamCall(ctx, upstream, { name, arguments: args }, signal);
      const latency_ms = Math.round(performance.now() - started);
      const status = result.isError ? "tool_error" : "succeeded";
      return {
        result,
        status,
        units: {
          server_id: upstream.row.id,
          tool: name,
          latency_ms,
          attestations: {
            action: {
              type: "mcp_tool_call",
              server_id: upstream.row.id,
              tool: name,
              arguments_sha256: fingerprint(args),
              result_sha256: fingerprint(result),
              status,
              latency_ms,
            },
          },
        },
      };
    },
  ).catch((err: unknown) => {
    throw err instanceof ApiError ? meterError(err) : upstreamError(err);
  });
  return withReceipt(outcome.result as CallToolResult, outcome.settlement);
}

export function gatewayServer(ctx: Context, principal: ApiKeyPrincipal, serverId: string, signal: AbortSignal): Server {
  // 404 before any MCP is spoken: unknown, another account's and disabled servers alike.
  const upstream = openServer(ctx, principal.accountId, serverId);
  const server = new Server(
    { name: upstream.row.name, version: ctx.version },
    { capabilities: { tools: {} }, instructions: `Tools of the MCP server "${upstream.row.name}", through svc's gateway: allowlisted, metered and receipted.` },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await gatewayTools(ctx, upstream, signal) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callGatewayTool(ctx, principal, upstream, { name: request.params.name, arguments: request.params.arguments ?? {} }, signal));
  return server;
}

export function serveGateway(ctx: Context, principal: ApiKeyPrincipal, serverId: string, request: Request, body: unknown): Promise<Response> {
  return serveMcpRequest(gatewayServer(ctx, principal, serverId, request.signal), request, body);
}
