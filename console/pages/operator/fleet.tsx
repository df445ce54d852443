/** Operator: providers and models with prices, nodes (approve, drain, disable), the denylist, replication and backup. */
import { del, get, post } from "../../api.ts";
import { usd, when } from "../../format.ts";
import { Action, Empty, Field, Form, Page, Show, Status, Table, useLoad } from "../../ui.tsx";

interface Catalog {
  providers: { name: string; kind: string; base_url_host: string | null; credential: string; available: boolean; unavailable_reason: string | null; models: string[] }[];
  models: { id: string; type: string; provider: string; serving_provider: string | null; listed: boolean; pricing: { input_micro_usd_per_mtok: number; output_micro_usd_per_mtok: number } }[];
}

export function OperatorProviders() {
  const loaded = useLoad(() => get<Catalog>("/v1/admin/providers"));
  return (
    <Page title="Providers and models" intro="From svc.toml ([[providers]] and [[models]]); change them there and reload (svc providers, svc models). Keys are never shown.">
      <Show loaded={loaded}>
        {(c) => (
          <>
            <h2>Providers</h2>
            {c.providers.length === 0 ? (
              <Empty title="No providers configured">Add one with svc providers add (an OpenAI- or Anthropic-compatible base URL and the environment variable holding its key).</Empty>
            ) : (
              <Table
                caption="Providers"
                rows={c.providers}
                rowKey={(p) => p.name}
                columns={[
                  { label: "Name", cell: (p) => p.name },
                  { label: "Kind", cell: (p) => p.kind },
                  { label: "Host", cell: (p) => <span class="mono small">{p.base_url_host ?? "—"}</span> },
                  { label: "Key", cell: (p) => p.credential },
                  { label: "Status", cell: (p) => (p.available ? <Status value="available" /> : <span class="error-text">{p.unavailable_reason ?? "unavailable"}</span>) },
                ]}
              />
            )}
            <h2>Models</h2>
            {c.models.length === 0 ? (
              <Empty title="No models configured">Add models with svc models add: an id, its provider and its price per million tokens.</Empty>
            ) : (
              <Table
                caption="Models and prices"
                rows={c.models}
                rowKey={(m) => m.id}
                columns={[
                  { label: "Model", cell: (m) => m.id },
                  { label: "Type", cell: (m) => m.type },
                  { label: "Served by", cell: (m) => m.serving_provider ?? "nobody" },
                  { label: "Input / 1M tokens", cell: (m) => usd(m.pricing.input_micro_usd_per_mtok) },
                  { label: "Output / 1M tokens", cell: (m) => usd(m.pricing.output_micro_usd_per_mtok) },
                  { label: "Listed", cell: (m) => <Status value={m.listed ? "listed" : "hidden"} /> },
                ]}
              />
            )}
          </>
        )}
      </Show>
    </Page>
  );
}

interface NodeRow {
  id: string;
  name: string;
  status: string;
  approved: boolean;
  disabled: boolean;
  draining: boolean;
  kinds: string[];
  in_flight: number;
  last_heartbeat_at: string | null;
}

export function OperatorNodes() {
  const loaded = useLoad(() => get<NodeRow[]>("/v1/admin/nodes"));
  return (
    <Page title="Nodes" intro="Machines that run sandboxes for this gateway. Enrol one with svc nodes enroll; approve it here once its agent has called in.">
      <Show loaded={loaded}>
        {(nodes) =>
          nodes.length === 0 ? (
            <Empty title="No nodes enrolled">Sandboxes run on this machine. To add capacity, run svc nodes enroll and start svc node on the other machine (docs/nodes.md).</Empty>
          ) : (
            <Table
              caption="Nodes"
              rows={nodes}
              rowKey={(n) => n.id}
              columns={[
                { label: "Node", cell: (n) => n.name },
                { label: "Status", cell: (n) => <Status value={n.status} /> },
                { label: "Serves", cell: (n) => n.kinds.join(", ") || "—" },
                { label: "In flight", cell: (n) => n.in_flight },
                { label: "Last heartbeat", cell: (n) => when(n.last_heartbeat_at) },
                {
                  label: "Actions",
                  cell: (n) =>
                    n.id === "gateway" ? (
                      "—"
                    ) : (
                      <>
                        <Action run={async () => (await post("/v1/admin/nodes/approve", { node_id: n.id, approved: !n.approved }), loaded.reload())}>{n.approved ? "Unapprove" : "Approve"}</Action>
                        <Action run={async () => (await post(`/v1/admin/nodes/${n.id}/draining`, { set: !n.draining }), loaded.reload())}>{n.draining ? "Undrain" : "Drain"}</Action>
                        <Action kind={n.disabled ? undefined : "danger"} run={async () => (await post(`/v1/admin/nodes/${n.id}/disabled`, { set: !n.disabled }), loaded.reload())}>
                          {n.disabled ? "Enable" : "Disable"}
                        </Action>
                      </>
                    ),
                },
              ]}
            />
          )
        }
      </Show>
    </Page>
  );
}

interface Denied {
  sha256: string;
  reason: string | null;
  created_at: string;
}

export function OperatorDenylist() {
  const loaded = useLoad(() => get<Denied[]>("/v1/admin/denylist"));
  return (
    <Page title="Denylist" intro="Request bodies whose sha256 is listed are refused (403 payload_denied) on every route.">
      <Form
        class="panel row"
        label="Refuse a payload"
        onSubmit={async (d) => {
          await post("/v1/admin/denylist", { sha256: String(d.get("sha256")).trim(), reason: String(d.get("reason") ?? "").trim() || null });
          loaded.reload();
        }}
      >
        <Field id="deny-sha" label="sha256 of the body">
          <input id="deny-sha" name="sha256" required pattern="[0-9a-fA-F]{64}" title="64 hex digits" size={66} />
        </Field>
        <Field id="deny-reason" label="Reason">
          <input id="deny-reason" name="reason" maxLength={500} />
        </Field>
        <button type="submit">Refuse</button>
      </Form>
      <Show loaded={loaded}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty title="Nothing is refused">Add the sha256 of a request body above to refuse it everywhere.</Empty>
          ) : (
            <Table
              caption="Refused digests"
              rows={rows}
              rowKey={(r) => r.sha256}
              columns={[
                { label: "sha256", cell: (r) => <span class="mono small">{r.sha256}</span> },
                { label: "Reason", cell: (r) => r.reason ?? "—" },
                { label: "Added", cell: (r) => when(r.created_at) },
                { label: "", cell: (r) => <Action run={async () => (await del(`/v1/admin/denylist/${r.sha256}`), loaded.reload())}>Remove</Action> },
              ]}
            />
          )
        }
      </Show>
    </Page>
  );
}

interface Backup {
  replication: { enabled: boolean; state: string; replica_kind: string | null; litestream_version: string | null; last_sync_at: string | null; lag_seconds: number | null; restarts: number; last_error: string | null };
  status: { replica: string | null; litestream: string | null; server_pid: number | null };
}

export function OperatorBackup() {
  const loaded = useLoad(() => get<Backup>("/v1/admin/backup"));
  return (
    <Page title="Replication and backup" intro="svc streams its SQLite database to a replica with Litestream; restore with svc backup restore (docs/backup.md).">
      <Show loaded={loaded}>
        {(b) => (
          <>
            {!b.replication.enabled && <Empty title="Replication is off">Configure a replica with svc backup configure --replica file:///path or s3://bucket/path; svc starts Litestream with the server.</Empty>}
            <dl class="facts">
              <dt>State</dt>
              <dd>
                <Status value={b.replication.state} />
              </dd>
              <dt>Replica</dt>
              <dd class="mono small">{b.status.replica ?? "—"}</dd>
              <dt>Litestream</dt>
              <dd>{b.replication.litestream_version ?? (b.status.litestream ? "installed" : "not installed")}</dd>
              <dt>Last sync</dt>
              <dd>{when(b.replication.last_sync_at)}</dd>
              <dt>Lag</dt>
              <dd>{b.replication.lag_seconds === null ? "—" : `${b.replication.lag_seconds.toFixed(1)} s`}</dd>
              <dt>Restarts</dt>
              <dd>{b.replication.restarts}</dd>
              {b.replication.last_error && (
                <>
                  <dt>Last error</dt>
                  <dd class="error-text">{b.replication.last_error}</dd>
                </>
              )}
            </dl>
          </>
        )}
      </Show>
    </Page>
  );
}
