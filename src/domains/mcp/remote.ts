/**
 * POST /v1/mcp: svc's own MCP server (the SDK's Server), exposing the caller's account through
 * the tools of tools/ — each one call of the owning area's service function.
 *
 *   tools/list   the tools this deployment offers that the key's scopes allow, with their JSON
 *                Schemas and descriptions
 *   tools/call   scope and arguments checked (a JSON-RPC error naming them), then the tool runs;
 *                a tool whose service meters itself returns that receipt, any other is metered
 *                here as an mcp_call event (reserve before the work, settle after); the receipt
 *                rides in the result's _meta under "svc/receipt"
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, type CallToolResult, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { Value } from "@sinclair/typebox/value";
import { ApiError } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { type ApiKeyPrincipal, hasScope } from "../keys/index.ts";
import { meterError } from "./gateway.ts";
import { fingerprint, meterCall, withReceipt } from "./metering.ts";
import { TOOLS, type SvcTool } from "./tools/index.ts";
import { toolError } from "./tools/types.ts";
import { serveMcpRequest } from "./transport.ts";

/** A TypeBox schema as plain JSON Schema (no TypeBox symbols). */
export const jsonSchema = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Tool["inputSchema"];

const described = new WeakMap<SvcTool, Tool>();
export function describeTool(tool: SvcTool): Tool {
  let d = described.get(tool);
  if (!d) {
    d = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchema(tool.input),
      ...(tool.output ? { outputSchema: jsonSchema(tool.output) } : {}),
      annotations: { title: tool.title, readOnlyHint: tool.readOnly ?? false, openWorldHint: false },
    };
    described.set(tool, d);
  }
  return d;
}

/** The tools this deployment offers this key. */
export function toolsFor(ctx: Context, principal: ApiKeyPrincipal): SvcTool[] {
  return TOOLS.filter((t) => (t.offered?.(ctx) ?? true) && hasScope(principal.scopes, t.scope));
}

function argumentsError(tool: SvcTool, args: unknown): McpError | null {
  if (Value.Check(tool.input, args)) return null;
  const first = Value.Errors(tool.input, args).First();
  const where = first?.path ? first.path.slice(1).replaceAll("/", ".") || "arguments" : "arguments";
  return new McpError(ErrorCode.InvalidParams, `${tool.name}: ${where}: ${first?.message ?? "is not valid"}`);
}

/**
 * tools/call of svc's own server: scope and arguments checked (McpError naming them), then the
 * tool runs metered; a refusal of the meter is an McpError whose data.type names it, anything the
 * tool's work answered is a result marked isError. Receipts chain into `runId` when given.
 */
export async function callSvcTool(ctx: Context, principal: ApiKeyPrincipal, signal: AbortSignal, name: string, args: Record<string, unknown>, runId: string | null = null): Promise<CallToolResult> {
  const tool = TOOLS.find((t) => t.name === name && (t.offered?.(ctx) ?? true));
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${name}" (tools/list names the tools this deployment offers)`);
  if (!hasScope(principal.scopes, tool.scope)) {
    throw new McpError(ErrorCode.InvalidRequest, `${name} needs the "${tool.scope}" scope, which this credential lacks`, { type: "missing_scope", scope: tool.scope });
  }
  const invalid = argumentsError(tool, args);
  if (invalid) throw invalid;
  const call = { ctx, principal, signal, runId };
  try {
    if (tool.metering === "self") {
      const outcome = await tool.run(call, args);
      return withReceipt(outcome.result, outcome.receipt ?? null);
    }
    const { result, settlement } = await meterCall(ctx, { principal, price: ctx.config.mcp.tool_price_micro_usd_per_call, resource: `svc:${tool.name}`, runId }, async () => {
      const outcome = await tool.run(call, args);
      const status = outcome.result.isError ? "tool_error" : "succeeded";
      return {
        result: outcome.result,
        status,
        units: {
          tool: tool.name,
          attestations: { action: { type: "mcp_tool_call", server_id: "svc", tool: tool.name, arguments_sha256: fingerprint(args), result_sha256: fingerprint(outcome.result), status } },
        },
      };
    });
    return withReceipt(result, settlement);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // Refused before the tool could run (credential, payment, spend controls, rate): a protocol
    // error the client branches on by data.type. Anything the tool's own work answered (an
    // unknown collection, a language this deployment lacks, no node free) is the tool's
    // result, marked isError, so the model calling it can read it and act (MCP: tool errors).
    if (REFUSALS.has(err.status)) throw meterError(err);
    return toolError(err.message, { type: err.type, status: err.status });
  }
}

const REFUSALS = new Set([401, 402, 403, 429]);

export function svcServer(ctx: Context, principal: ApiKeyPrincipal, signal: AbortSignal): Server {
  const server = new Server(
    { name: "svc", title: "svc", version: ctx.version },
    {
      // logging: clients may set a level (logging/setLevel); svc's tools send no log messages today.
      capabilities: { tools: {}, logging: {} },
      instructions: "svc's tools for this account: credit, models, sandboxes, state and memory, each metered with a signed receipt in the result's _meta (\"svc/receipt\").",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolsFor(ctx, principal).map(describeTool) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callSvcTool(ctx, principal, signal, request.params.name, request.params.arguments ?? {}));
  return server;
}

export function serveSvcMcp(ctx: Context, principal: ApiKeyPrincipal, request: Request, body: unknown): Promise<Response> {
  return serveMcpRequest(svcServer(ctx, principal, request.signal), request, body);
}
