/** Agents and runs: the account's hosted agents, and its runs (receipts grouped by svc_run_id) with their proofs' anchoring. */
import { get } from "../api.ts";
import { usd, when } from "../format.ts";
import { Empty, LocalPages, Page, Show, Status, Table, useLoad } from "../ui.tsx";

interface Agent {
  id: string;
  name: string;
  model: string;
  enabled: boolean;
  max_steps: number;
  budget_micro_usd_per_run: number | null;
  created_at: string;
}

interface Run {
  run_id: string;
  receipt_count: number;
  cost_micro_usd: number;
  first_receipt_at: string;
  last_receipt_at: string;
  kinds: string[];
  anchored: boolean;
}

export function Agents() {
  const agents = useLoad(() => get<{ agents: Agent[] }>("/v1/agents"));
  const runs = useLoad(() => get<{ runs: Run[] }>("/v1/runs"));
  return (
    <Page title="Agents and runs" intro="Hosted agents run on their own delegated keys; a run groups every receipt that carried its svc_run_id.">
      <h2>Agents</h2>
      <Show loaded={agents}>
        {({ agents: rows }) =>
          rows.length === 0 ? (
            <Empty title="No hosted agents">Create one with POST /v1/agents (docs/agents.md): a model, instructions, tools and a budget per run.</Empty>
          ) : (
            <Table
              caption="Agents"
              rows={rows}
              rowKey={(a) => a.id}
              columns={[
                { label: "Name", cell: (a) => a.name },
                { label: "Model", cell: (a) => a.model },
                { label: "Enabled", cell: (a) => <Status value={a.enabled ? "enabled" : "disabled"} /> },
                { label: "Budget per run", cell: (a) => (a.budget_micro_usd_per_run === null ? "—" : usd(a.budget_micro_usd_per_run)) },
                { label: "Created", cell: (a) => when(a.created_at) },
              ]}
            />
          )
        }
      </Show>
      <h2>Runs</h2>
      <Show loaded={runs}>
        {({ runs: rows }) =>
          rows.length === 0 ? (
            <Empty title="No runs yet">Send the header svc-run-id on your calls (or let an agent run) and the receipts are grouped here, with an inclusion proof per run.</Empty>
          ) : (
            <LocalPages rows={rows} label="Runs">
              {(page) => (
                <Table
                  caption="Runs, most recent first"
                  rows={page}
                  rowKey={(r) => r.run_id}
                  columns={[
                    { label: "Run", cell: (r) => <span class="mono">{r.run_id}</span> },
                    { label: "Receipts", cell: (r) => <a href={`/console/receipts`}>{r.receipt_count}</a> },
                    { label: "Cost", cell: (r) => usd(r.cost_micro_usd) },
                    { label: "Kinds", cell: (r) => r.kinds.join(", ") },
                    { label: "Anchored", cell: (r) => <Status value={r.anchored ? "anchored" : "pending"} /> },
                    { label: "Last", cell: (r) => when(r.last_receipt_at) },
                  ]}
                />
              )}
            </LocalPages>
          )
        }
      </Show>
    </Page>
  );
}
