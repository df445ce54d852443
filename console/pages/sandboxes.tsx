/** Sandboxes: the account's code sandbox sessions and one-shot runs, with their cost. */
import { get } from "../api.ts";
import { usd, when } from "../format.ts";
import { Empty, LocalPages, Page, Show, Status, Table, useLoad } from "../ui.tsx";

interface Sandbox {
  id: string;
  kind: string;
  language: string | null;
  status: string;
  created_at: string;
  ended_at: string | null;
  alive_seconds: number | null;
  exec_count: number;
  cost_micro_usd: number;
}

export function Sandboxes() {
  const loaded = useLoad(() => get<Sandbox[]>("/v1/usage/sandboxes"));
  return (
    <Page title="Sandboxes" intro="Code sandbox sessions and one-shot runs started by the account's keys (scope sandboxes).">
      <Show loaded={loaded}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty title="No sandboxes yet">Run code with POST /v1/sandboxes/run, or open a session with POST /v1/sandboxes/sessions, using a key with the sandboxes scope.</Empty>
          ) : (
            <LocalPages rows={rows} label="Sandboxes">
              {(page) => (
                <Table
                  caption="Sandboxes, newest first"
                  rows={page}
                  rowKey={(s) => s.id}
                  columns={[
                    { label: "Id", cell: (s) => <span class="mono small">{s.id}</span> },
                    { label: "Kind", cell: (s) => s.kind.replace("_", "-") },
                    { label: "Language", cell: (s) => s.language ?? "—" },
                    { label: "Status", cell: (s) => <Status value={s.status} /> },
                    { label: "Execs", cell: (s) => s.exec_count },
                    { label: "Cost", cell: (s) => usd(s.cost_micro_usd) },
                    { label: "Started", cell: (s) => when(s.created_at) },
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
