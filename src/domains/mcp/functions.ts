/**
 * MCP tools as functions for another area's model loop (hosted agents): svc's own tools and a
 * registered server's allowlisted tools, each with a name a model API accepts, a description and
 * a JSON Schema, and a call that runs exactly what tools/call on POST /v1/mcp (remote.ts) or
 * POST /v1/mcp/servers/:id (gateway.ts) runs — the same scope, argument and allowlist checks,
 * metering and receipt — with the receipt chained into the caller's run.
 *
 * A call answers the tool's result (isError when the tool's own work failed: the model reads it
 * and may correct itself) or throws an McpError when the call was refused before any work (an
 * unknown tool, bad arguments, missing scope, the meter's 402/403/429): `refusalOf` reads which.
 */
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "../../context.ts";
import type { ApiKeyPrincipal, Scope } from "../keys/index.ts";
import { callGatewayTool, gatewayTools } from "./gateway.ts";
import { callSvcTool, describeTool } from "./remote.ts";
import { openServer } from "./servers.ts";
import { TOOLS } from "./tools/index.ts";

export interface FunctionTool {
  /** ^[A-Za-z0-9_-]{1,64}$, what OpenAI and Anthropic accept as a function name. */
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object). */
  parameters: Record<string, unknown>;
  call(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

/** svc's own tools this deployment offers, with the key scope each needs. */
export function svcToolScopes(ctx: Context): Map<string, Scope> {
  return new Map(TOOLS.filter((t) => t.offered?.(ctx) ?? true).map((t) => [t.name, t.scope]));
}

/** The named svc tools as functions; receipts chain into `runId`. Unknown names are skipped (the caller validated them). */
export function svcFunctions(ctx: Context, principal: ApiKeyPrincipal, names: readonly string[], runId: string | null): FunctionTool[] {
  return TOOLS.filter((t) => names.includes(t.name) && (t.offered?.(ctx) ?? true)).map((t) => {
    const d = describeTool(t);
    return {
      name: t.name,
      description: d.description ?? t.title,
      parameters: d.inputSchema as Record<string, unknown>,
      call: (args, signal) => callSvcTool(ctx, principal, signal, t.name, args, runId),
    };
  });
}

/** Whether the account has this MCP server, enabled (an unknown, another account's or disabled one: false). */
export function mcpServerUsable(ctx: Context, accountId: string, serverId: string): boolean {
  try {
    openServer(ctx, accountId, serverId);
    return true;
  } catch {
    return false;
  }
}

const FUNCTION_NAME = /[^A-Za-z0-9_-]/g;

/**
 * A registered server's allowlisted tools as functions named `<server id>__<tool>` (characters a
 * model API refuses become "_", cut to 64), so two servers' tools never collide. The server is
 * dialed to list them: an unreachable one throws an McpError.
 */
export async function serverFunctions(ctx: Context, principal: ApiKeyPrincipal, serverId: string, runId: string | null, signal: AbortSignal): Promise<FunctionTool[]> {
  const upstream = openServer(ctx, principal.accountId, serverId);
  const tools = await gatewayTools(ctx, upstream, signal);
  return tools.map((t) => ({
    name: `${serverId}__${t.name}`.replace(FUNCTION_NAME, "_").slice(0, 64),
    description: t.description ?? t.title ?? t.name,
    parameters: t.inputSchema as Record<string, unknown>,
    call: (args, s) => callGatewayTool(ctx, principal, upstream, { name: t.name, arguments: args, runId }, s),
  }));
}

export interface Refusal {
  type: string;
  status: number | null;
  message: string;
}

/** What refused a call before any work, from the McpError a function threw; null for any other error. */
export function refusalOf(err: unknown): Refusal | null {
  if (!(err instanceof McpError)) return null;
  const data = (err.data ?? {}) as { type?: unknown; status?: unknown };
  return {
    type: typeof data.type === "string" ? data.type : "tool_refused",
    status: typeof data.status === "number" ? data.status : null,
    message: err.message.replace(/^MCP error -?\d+: /, ""),
  };
}
