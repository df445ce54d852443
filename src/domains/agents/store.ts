/**
 * The agents table: rows, the sealed instructions, and the view the API answers with. A deleted
 * agent keeps its row (its runs stay readable) and is otherwise gone: every route but the run
 * history answers 404 for it, as for an unknown or another account's agent.
 */
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import type { Context } from "../../context.ts";

export interface AgentRow {
  id: string;
  account_id: string;
  name: string;
  model: string;
  instructions_sealed: string;
  tools: string;
  mcp_servers: string;
  key_id: string;
  parent_key_id: string;
  owns_parent_key: number;
  max_steps: number;
  budget_micro_usd_per_run: number | null;
  monthly_cap_micro_usd: number | null;
  enabled: number;
  hook_token_sha256: string | null;
  hook_secret_sealed: string | null;
  mailbox_trigger: number;
  max_runs_per_hour: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface AgentView {
  id: string;
  name: string;
  model: string;
  instructions: string;
  tools: string[];
  mcp_servers: string[];
  key_id: string;
  parent_key_id: string;
  max_steps: number;
  budget_micro_usd_per_run: number | null;
  monthly_cap_micro_usd: number | null;
  enabled: boolean;
  hook: { enabled: boolean; signed: boolean };
  triggers: { mailbox: boolean; max_runs_per_hour: number | null };
  created_at: string;
  updated_at: string;
}

export const instructionsAad = (id: string) => `agents:${id}:instructions`;
export const hookSecretAad = (id: string) => `agents:${id}:hook_secret`;

export function agentView(ctx: Context, row: AgentRow): AgentView {
  return {
    id: row.id,
    name: row.name,
    model: row.model,
    instructions: ctx.sealer.openText(row.instructions_sealed, instructionsAad(row.id)),
    tools: JSON.parse(row.tools) as string[],
    mcp_servers: JSON.parse(row.mcp_servers) as string[],
    key_id: row.key_id,
    parent_key_id: row.parent_key_id,
    max_steps: row.max_steps,
    budget_micro_usd_per_run: row.budget_micro_usd_per_run,
    monthly_cap_micro_usd: row.monthly_cap_micro_usd,
    enabled: row.enabled === 1,
    hook: { enabled: row.hook_token_sha256 !== null, signed: row.hook_secret_sealed !== null },
    triggers: { mailbox: row.mailbox_trigger === 1, max_runs_per_hour: row.max_runs_per_hour },
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

export const agentRow = (ctx: Context, id: string): AgentRow | null => ctx.db.query<AgentRow, [string]>("SELECT * FROM agents WHERE id = ?").get(id);

/** The account's live agent; unknown, another account's and deleted agents answer the same 404. */
export function ownAgent(ctx: Context, accountId: string, id: string): AgentRow {
  const row = agentRow(ctx, id);
  if (!row || row.account_id !== accountId || row.deleted_at !== null) throw notFound("agent");
  return row;
}

/** The account's agent, deleted or not (its run history). */
export function ownAgentWithHistory(ctx: Context, accountId: string, id: string): AgentRow {
  const row = agentRow(ctx, id);
  if (!row || row.account_id !== accountId) throw notFound("agent");
  return row;
}

export const liveAgents = (ctx: Context, accountId: string): AgentRow[] =>
  ctx.db.query<AgentRow, [string]>("SELECT * FROM agents WHERE account_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, rowid DESC").all(accountId);

export const liveAgentCount = (ctx: Context, accountId: string): number =>
  ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM agents WHERE account_id = ? AND deleted_at IS NULL").get(accountId)!.n;

export function touch(ctx: Context, id: string, set: string, args: (string | number | null)[]): AgentRow {
  ctx.db.query(`UPDATE agents SET ${set}, updated_at = ? WHERE id = ?`).run(...args, ctx.clock.now(), id);
  return agentRow(ctx, id)!;
}
