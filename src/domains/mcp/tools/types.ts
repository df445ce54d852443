/**
 * One tool of svc's own MCP server (POST /v1/mcp): its name, description and input schema (TypeBox,
 * i.e. JSON Schema, which tools/list shows and tools/call checks), the key scope it needs, and
 * what it runs — one call of the owning area's service function, through that area's index.ts.
 *
 * Billing: a tool whose service meters itself (chat, sandbox_run, memory_search) hands back that
 * service's receipt; any other is metered by the MCP layer as an `mcp_call` event at
 * mcp.tool_price_micro_usd_per_call (0 by default: a receipt, no charge).
 */
import type { TSchema } from "@sinclair/typebox";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "../../../context.ts";
import type { ApiKeyPrincipal, Scope } from "../../keys/index.ts";
import type { ReceiptMeta } from "../metering.ts";

export interface ToolCall {
  ctx: Context;
  principal: ApiKeyPrincipal;
  signal: AbortSignal;
  /** The run every receipt of the call is chained into (a hosted agent's run), or null. */
  runId: string | null;
}

/** A tool's answer; `receipt` when its service metered the work itself. */
export interface ToolOutcome {
  result: CallToolResult;
  receipt?: ReceiptMeta | null;
}

export interface SvcTool<A = Record<string, unknown>> {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  input: TSchema;
  output?: TSchema;
  /** "self": the service behind it meters and receipts; "mcp_call": the MCP layer does. */
  metering: "self" | "mcp_call";
  /** Whether this deployment offers the tool at all (e.g. chat needs mcp.chat_model). */
  offered?(ctx: Context): boolean;
  readOnly?: boolean;
  run(call: ToolCall, args: A): Promise<ToolOutcome>;
}

export const defineTool = <A>(tool: SvcTool<A>): SvcTool => tool as unknown as SvcTool;

/** A tool's answer as text and, when it has an output schema, as structured content. */
export const structured = (value: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  structuredContent: value,
});

/** A tool execution error (isError: the model sees it and may correct itself), never a fake result. */
export const toolError = (message: string, extra: Record<string, unknown> = {}): CallToolResult => ({
  content: [{ type: "text", text: message }],
  isError: true,
  ...(Object.keys(extra).length ? { structuredContent: { error: message, ...extra } } : {}),
});

export const notAvailable = (tool: string, area: string): ToolOutcome => ({
  result: toolError(`${tool} is not available on this deployment: the ${area} service is not installed here`, { type: "not_available", area }),
});
