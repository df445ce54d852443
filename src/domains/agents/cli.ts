/**
 * svc agents list|runs: operators looking at hosted agents — an account's agents (never their
 * instructions or keys' secrets) and one agent's runs (status, turns, cost, error; never input
 * or output).
 */
import { accountOption, type Command, type Group, locationOptions, requireAccount, UsageError } from "../../cli/command.ts";
import { getAccount } from "../accounts/index.ts";
import { listRuns } from "./runs.ts";
import { agentRow, liveAgents } from "./store.ts";

const json = { type: "boolean", description: "print JSON" } as const;

const list: Command = {
  name: "agents list",
  summary: "An account's hosted agents: model, tools, gate, hook, triggers, caps",
  options: { ...locationOptions, json, account: accountOption },
  run: ({ values }, host) => {
    const accountId = requireAccount(values);
    return host.withContext(values, (ctx) => {
      getAccount(ctx, accountId);
      const agents = liveAgents(ctx, accountId).map((a) => ({
        id: a.id,
        name: a.name,
        model: a.model,
        tools: JSON.parse(a.tools) as string[],
        mcp_servers: JSON.parse(a.mcp_servers) as string[],
        key_id: a.key_id,
        enabled: a.enabled === 1,
        hook: a.hook_token_sha256 === null ? "off" : a.hook_secret_sealed === null ? "on" : "on, signed",
        mailbox_trigger: a.mailbox_trigger === 1,
        max_runs_per_hour: a.max_runs_per_hour,
        max_steps: a.max_steps,
        budget_micro_usd_per_run: a.budget_micro_usd_per_run,
        monthly_cap_micro_usd: a.monthly_cap_micro_usd,
      }));
      if (values.json) return void console.log(JSON.stringify({ agents }, null, 2));
      if (!agents.length) return void console.log("no agents");
      for (const a of agents) {
        const triggers = a.mailbox_trigger ? `mailbox${a.max_runs_per_hour ? ` ≤${a.max_runs_per_hour}/h` : ""}` : "manual only";
        console.log(`${a.id}  ${a.name}  ${a.model}  ${a.enabled ? "enabled" : "disabled"}  hook ${a.hook}  ${triggers}  tools: ${a.tools.join(", ") || "none"}`);
      }
    });
  },
};

const runs: Command = {
  name: "agents runs",
  summary: "An agent's runs, newest first (at most 100): status, trigger, turns, cost, error",
  args: "AGENT_ID",
  positionals: { min: 1, max: 1 },
  options: { ...locationOptions, json },
  run: ({ values, positionals }, host) =>
    host.withContext(values, (ctx) => {
      const agent = agentRow(ctx, positionals[0]!);
      if (!agent) throw new UsageError(`no agent ${positionals[0]}`);
      const list = listRuns(ctx, agent.id);
      if (values.json) return void console.log(JSON.stringify({ agent_id: agent.id, runs: list }, null, 2));
      if (!list.length) return void console.log(`${agent.id} (${agent.name}) has no runs`);
      for (const r of list) {
        console.log(`${r.id}  ${r.status}  ${r.trigger}  ${r.turns} turn(s)  ${r.cost_micro_usd} µUSD  ${r.created_at}${r.error ? `  ${r.error.type}: ${r.error.message}` : ""}`);
      }
    }),
};

export const agentsGroup: Group = { name: "agents", summary: "Hosted agents: list an account's agents, an agent's runs", commands: [list, runs] };
