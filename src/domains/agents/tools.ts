/**
 * The functions a run's model may call: the svc tools the agent names (sandbox_run, state_*,
 * memory_search, …, each through the MCP area exactly as tools/call on POST /v1/mcp runs it),
 * send_message (this area's: a message to another of the account's agents), and the allowlisted
 * tools of the agent's MCP servers (through the gateway). Every call is metered and receipted
 * into the run.
 */
import { Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../../core/errors.ts";
import { meterWork } from "../../core/metered-work.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import type { ApiKeyPrincipal } from "../keys/index.ts";
import { type FunctionTool, serverFunctions, svcFunctions, withReceipt } from "../mcp/index.ts";
import { sendMessage } from "./mailbox.ts";
import { MAX_MESSAGE_BODY, MAX_SUBJECT } from "./limits.ts";
import type { AgentRow } from "./store.ts";

export const SEND_MESSAGE = "send_message";

const SendArgs = T.Object(
  {
    to_agent_id: T.String({ minLength: 1, maxLength: 64, description: "the receiving agent's id (another agent of this account)" }),
    subject: T.Optional(T.String({ maxLength: MAX_SUBJECT })),
    body: T.String({ minLength: 1, maxLength: MAX_MESSAGE_BODY }),
  },
  { additionalProperties: false },
);

const text = (value: string, isError = false): CallToolResult => ({ content: [{ type: "text", text: value }], ...(isError ? { isError: true } : {}) });

function sendMessageTool(ctx: Context, agent: AgentRow, principal: ApiKeyPrincipal, runId: string): FunctionTool {
  return {
    name: SEND_MESSAGE,
    description: "Send a message to the mailbox of another agent of this account (its mailbox trigger may start a run of it). Receipted.",
    parameters: JSON.parse(JSON.stringify(SendArgs)) as Record<string, unknown>,
    async call(args) {
      if (!Value.Check(SendArgs, args)) {
        const first = Value.Errors(SendArgs, args).First();
        return text(`send_message: ${first?.path.slice(1) || "arguments"}: ${first?.message ?? "is not valid"}`, true);
      }
      const a = args as { to_agent_id: string; subject?: string; body: string };
      const { result, settlement } = await meterWork(
        ctx.meter,
        ctx.log,
        { accountId: agent.account_id, keyId: principal.keyId, price: ctx.config.agents.message_price_micro_usd, kind: "agent_message", resource: a.to_agent_id, runId },
        async () => {
          try {
            const sent = sendMessage(ctx, agent.account_id, a.to_agent_id, { from_agent_id: agent.id, subject: a.subject, body: a.body });
            const done = { message_id: sent.id, to_agent_id: a.to_agent_id };
            return { result: { content: [{ type: "text", text: JSON.stringify(done) }], structuredContent: done } as CallToolResult, status: "succeeded", units: units(agent, a, "succeeded") };
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            return { result: text(`send_message: ${err.message}`, true), status: "tool_error", units: units(agent, a, "tool_error") };
          }
        },
      );
      return withReceipt(result, settlement);
    },
  };
}

/** What the receipt says about a message: who to whom and the body's fingerprint, never the text. */
const units = (agent: AgentRow, a: { to_agent_id: string; body: string }, status: string) => ({
  tool: SEND_MESSAGE,
  attestations: { action: { type: "agent_message", from_agent_id: agent.id, to_agent_id: a.to_agent_id, body_sha256: sha256Hex(a.body), status } },
});

/** Every function the run may call; an MCP server that cannot be listed throws (McpError). */
export async function runFunctions(ctx: Context, agent: AgentRow, principal: ApiKeyPrincipal, runId: string, signal: AbortSignal): Promise<FunctionTool[]> {
  const names = JSON.parse(agent.tools) as string[];
  const fns = svcFunctions(ctx, principal, names, runId);
  if (names.includes(SEND_MESSAGE)) fns.push(sendMessageTool(ctx, agent, principal, runId));
  for (const serverId of JSON.parse(agent.mcp_servers) as string[]) fns.push(...(await serverFunctions(ctx, principal, serverId, runId, signal)));
  return fns;
}
