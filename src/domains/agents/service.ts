/**
 * Hosted agents: defining one, its gate, its triggers, deleting it.
 *
 * Rules:
 * - At most 20 live agents per account (spec §8): the 21st is refused 409 agent_limit_reached.
 * - An agent runs under its own key, never the account's session: a child delegated (by the
 *   owner) from `key_id`, or from a root key made for the agent when none is named. The child
 *   holds only the scopes its tools need (inference, and sandboxes / state / memory / mailbox /
 *   mcp as its tools require) and the agent's monthly cap; the parent must hold those scopes.
 * - tools are names of svc's own tools this deployment offers (GET /v1/mcp tools/list) and
 *   send_message; mcp_servers are the account's enabled registered MCP servers.
 * - Deleting revokes the agent's key (and the root key made for it), cancels its queued runs,
 *   forgets its hook and triggers, and keeps its run history and receipts.
 * - Gated off, an agent queues nothing: its hook answers 404, mailbox messages are delivered but
 *   start no run, manual triggers are refused 409 agent_disabled, and runs already queued are
 *   cancelled when they come up.
 */
import { ApiError, conflict, invalidField } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { MicroUsd } from "../../core/money.ts";
import type { Context } from "../../context.ts";
import { checkChatModel } from "../inference/index.ts";
import { delegateKey, getKeyRow, keyInForce, keyNotFound, mintKey, revokeKey, type Scope, scopesWithin } from "../keys/index.ts";
import { mcpServerUsable, svcToolScopes } from "../mcp/index.ts";
import { dispatchMailbox } from "./mailbox.ts";
import { cancelQueuedRuns, queueRun, type RunRow } from "./runs.ts";
import { type AgentView, agentView, instructionsAad, liveAgentCount, liveAgents, ownAgent, touch } from "./store.ts";
import { SEND_MESSAGE } from "./tools.ts";

/** Spec §8: hosted agents, at most 20 per account. */
export const MAX_AGENTS_PER_ACCOUNT = 20;

export interface AgentInput {
  name: string;
  model: string;
  instructions: string;
  tools?: string[];
  mcp_servers?: string[];
  key_id?: string;
  max_steps?: number;
  budget_micro_usd_per_run?: MicroUsd | null;
  monthly_cap_micro_usd?: MicroUsd | null;
  enabled?: boolean;
}

/** The scopes an agent's key needs for its tools. */
function scopesFor(ctx: Context, tools: string[], servers: string[]): Scope[] {
  const offered = svcToolScopes(ctx);
  const scopes = new Set<Scope>(["inference"]);
  for (const t of tools) {
    if (t === SEND_MESSAGE) scopes.add("mailbox");
    else scopes.add(offered.get(t)!);
  }
  if (servers.length) scopes.add("mcp");
  return [...scopes].sort();
}

function checkTools(ctx: Context, tools: string[]): void {
  const offered = svcToolScopes(ctx);
  const known = [...offered.keys(), SEND_MESSAGE];
  tools.forEach((t, i) => {
    if (!known.includes(t)) throw invalidField(`tools.${i}`, `"${t}" is not a tool this deployment offers agents (${known.join(", ")})`);
  });
}

function checkServers(ctx: Context, accountId: string, servers: string[]): void {
  servers.forEach((id, i) => {
    if (!mcpServerUsable(ctx, accountId, id)) throw invalidField(`mcp_servers.${i}`, `"${id}" is not one of this account's enabled MCP servers (GET /v1/mcp-servers)`);
  });
}

const limitReached = () =>
  new ApiError(409, "agent_limit_reached", `this account has ${MAX_AGENTS_PER_ACCOUNT} hosted agents, the most allowed; delete one first`, { limit: MAX_AGENTS_PER_ACCOUNT });

export function createAgent(ctx: Context, accountId: string, input: AgentInput): AgentView {
  const tools = [...new Set(input.tools ?? [])];
  const servers = [...new Set(input.mcp_servers ?? [])];
  const maxSteps = input.max_steps ?? ctx.config.agents.default_max_steps;
  if (maxSteps > ctx.config.agents.max_steps_limit) throw invalidField("max_steps", `must be at most ${ctx.config.agents.max_steps_limit} on this deployment`);
  checkChatModel(ctx, input.model, "model", accountId);
  checkTools(ctx, tools);
  checkServers(ctx, accountId, servers);
  const scopes = scopesFor(ctx, tools, servers);
  return ctx.tx.run(() => {
    if (liveAgentCount(ctx, accountId) >= MAX_AGENTS_PER_ACCOUNT) throw limitReached();
    let parentId: string;
    const ownsParent = input.key_id === undefined;
    if (input.key_id !== undefined) {
      const named = getKeyRow(ctx, input.key_id);
      // Another account's key answers as an unknown one.
      if (!named || named.account_id !== accountId) throw keyNotFound();
      // A rotated key stands for its replacement; delegateKey refuses one not active (403 key_not_active).
      const parent = keyInForce(ctx, named.id);
      const held = JSON.parse(parent.scopes) as string[];
      if (!scopesWithin(scopes, held)) throw invalidField("key_id", `the key lacks scopes this agent's tools need (it needs ${scopes.join(", ")}; it holds ${held.join(", ")})`);
      parentId = parent.id;
    } else {
      parentId = mintKey(ctx, { accountId, kind: "standard", name: `agent ${input.name} (root)`, scopes, monthlyCap: input.monthly_cap_micro_usd ?? null }).view.id;
    }
    const child = delegateKey(ctx, parentId, { name: `agent ${input.name}`, scopes, monthlyCap: input.monthly_cap_micro_usd ?? null, byOwner: true });
    const id = newId("agt");
    const now = ctx.clock.now();
    ctx.db
      .query(
        `INSERT INTO agents (id, account_id, name, model, instructions_sealed, tools, mcp_servers, key_id, parent_key_id, owns_parent_key, max_steps,
                             budget_micro_usd_per_run, monthly_cap_micro_usd, enabled, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        accountId,
        input.name,
        input.model,
        ctx.sealer.seal(input.instructions, instructionsAad(id)),
        JSON.stringify(tools),
        JSON.stringify(servers),
        child.view.id,
        parentId,
        ownsParent ? 1 : 0,
        maxSteps,
        input.budget_micro_usd_per_run ?? null,
        input.monthly_cap_micro_usd ?? null,
        input.enabled === false ? 0 : 1,
        now,
        now,
      );
    return agentView(ctx, ownAgent(ctx, accountId, id));
  });
}

export const listAgents = (ctx: Context, accountId: string): AgentView[] => liveAgents(ctx, accountId).map((r) => agentView(ctx, r));

export function deleteAgent(ctx: Context, accountId: string, id: string): { id: string; deleted: true; cancelled_runs: number } {
  return ctx.tx.run(() => {
    const row = ownAgent(ctx, accountId, id);
    revokeKey(ctx, accountId, row.owns_parent_key ? row.parent_key_id : row.key_id, "agent_deleted");
    const cancelled = cancelQueuedRuns(ctx, row.id, "the agent was deleted");
    touch(ctx, row.id, "deleted_at = ?, enabled = 0, hook_token_sha256 = NULL, hook_secret_sealed = NULL, mailbox_trigger = 0", [ctx.clock.now()]);
    return { id: row.id, deleted: true as const, cancelled_runs: cancelled };
  });
}

export function gateAgent(ctx: Context, accountId: string, id: string, enabled: boolean): AgentView {
  const row = ctx.tx.run(() => touch(ctx, ownAgent(ctx, accountId, id).id, "enabled = ?", [enabled ? 1 : 0]));
  // Messages that waited for the hourly limit while the agent was off may start now.
  if (enabled) dispatchMailbox(ctx, row.id);
  return agentView(ctx, row);
}

export function setTriggers(ctx: Context, accountId: string, id: string, input: { mailbox?: boolean; max_runs_per_hour?: number | null }): AgentView {
  const current = ownAgent(ctx, accountId, id);
  const mailbox = input.mailbox ?? current.mailbox_trigger === 1;
  const perHour = input.max_runs_per_hour === undefined ? current.max_runs_per_hour : input.max_runs_per_hour;
  const row = ctx.tx.run(() => touch(ctx, current.id, "mailbox_trigger = ?, max_runs_per_hour = ?", [mailbox ? 1 : 0, perHour]));
  if (mailbox) dispatchMailbox(ctx, row.id);
  return agentView(ctx, row);
}

export function triggerAgent(ctx: Context, accountId: string, id: string, input: string): RunRow {
  const row = ownAgent(ctx, accountId, id);
  if (row.enabled !== 1) throw conflict("agent_disabled", "the agent is gated off; POST /v1/agents/:id/gate {\"enabled\": true} turns it on");
  return queueRun(ctx, row, "manual", input);
}
