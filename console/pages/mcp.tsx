/** MCP servers: the upstream servers the account put behind svc's metered MCP gateway. */
import { del, get, post } from "../api.ts";
import { usd, when } from "../format.ts";
import { Action, Empty, Page, Show, Status, Table, useLoad } from "../ui.tsx";

interface Server {
  id: string;
  name: string;
  url: string;
  has_credential: boolean;
  effective_price_micro_usd_per_call: number;
  enabled: boolean;
  endpoint: string;
  created_at: string;
}

export function McpServers() {
  const loaded = useLoad(() => get<{ servers: Server[] }>("/v1/mcp-servers"));
  return (
    <Page title="MCP servers" intro="Upstream MCP servers reached through svc: each tools/call is metered, receipted and held to the key's caps.">
      <Show loaded={loaded}>
        {({ servers }) =>
          servers.length === 0 ? (
            <Empty title="No MCP servers">Register one with POST /v1/mcp-servers (name and URL, optional credential; docs/mcp.md); its gateway endpoint then appears here.</Empty>
          ) : (
            <Table
              caption="MCP servers"
              rows={servers}
              rowKey={(s) => s.id}
              columns={[
                { label: "Name", cell: (s) => s.name },
                { label: "Gateway endpoint", cell: (s) => <span class="mono small">{s.endpoint}</span> },
                { label: "Price per call", cell: (s) => usd(s.effective_price_micro_usd_per_call) },
                { label: "Status", cell: (s) => <Status value={s.enabled ? "enabled" : "disabled"} /> },
                { label: "Added", cell: (s) => when(s.created_at) },
                {
                  label: "Actions",
                  cell: (s) => (
                    <>
                      <Action run={async () => (await post(`/v1/mcp-servers/${s.id}/test`), loaded.reload())}>Test</Action>
                      <Action kind="danger" confirm={`Remove ${s.name}?`} run={async () => (await del(`/v1/mcp-servers/${s.id}`), loaded.reload())}>
                        Remove
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
