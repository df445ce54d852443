/** Usage: the metered events, filtered by kind, key and dates, paged, exported as CSV; spend per model over the filter. */
import { useState } from "preact/hooks";
import { get, query, raw } from "../api.ts";
import { usd, when } from "../format.ts";
import { Action, BarChart, Empty, Page, Paged, Show, Status, Table, useLoad } from "../ui.tsx";
import type { UsageEvent, UsageSummary } from "./types.ts";

interface Filters {
  kind: string;
  key_id: string;
  from: string;
  to: string;
}

const asInstant = (day: string) => (day ? `${day}T00:00:00Z` : undefined);

export function Usage() {
  const [filters, setFilters] = useState<Filters>({ kind: "", key_id: "", from: "", to: "" });
  const params = { kind: filters.kind, key_id: filters.key_id, from: asInstant(filters.from), to: asInstant(filters.to) };
  const summary = useLoad(() => get<UsageSummary>("/v1/usage?days=30"));
  return (
    <Page title="Usage" intro="Every metered call: what it used and what it cost, newest first.">
      <Show loaded={summary}>
        {(s) => {
          const byModel = new Map<string, number>();
          for (const e of s.recent) if (e.resource) byModel.set(e.resource, (byModel.get(e.resource) ?? 0) + e.cost_micro_usd);
          const byKind = Object.entries(s.totals.by_kind).map(([label, v]) => ({ label, value: v.cost_micro_usd }));
          return (
            <div class="cards">
              <div class="card wide">
                <h2>Spend by kind, last 30 days</h2>
                {byKind.length ? <BarChart label="Spend by kind over 30 days" data={byKind} format={usd} /> : <p class="muted">Nothing metered in 30 days.</p>}
              </div>
              <div class="card wide">
                <h2>Spend per model, recent calls</h2>
                {byModel.size ? <BarChart label="Spend per model over the 25 most recent events" data={[...byModel].map(([label, value]) => ({ label, value }))} format={usd} /> : <p class="muted">No model calls yet.</p>}
              </div>
            </div>
          );
        }}
      </Show>
      <form
        class="filters"
        aria-label="Filter events"
        onSubmit={(e) => {
          e.preventDefault();
          const d = new FormData(e.currentTarget as HTMLFormElement);
          setFilters({ kind: String(d.get("kind") ?? ""), key_id: String(d.get("key_id") ?? "").trim(), from: String(d.get("from") ?? ""), to: String(d.get("to") ?? "") });
        }}
      >
        <label>
          Kind{" "}
          <select name="kind" defaultValue="">
            <option value="">all</option>
            {["inference", "sandbox", "mcp_call", "memory", "state", "agent_run", "batch"].map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label>
          Key id <input name="key_id" size={14} placeholder="key_…" />
        </label>
        <label>
          From <input type="date" name="from" />
        </label>
        <label>
          To <input type="date" name="to" />
        </label>
        <button type="submit">Apply</button>
        <Action
          run={async () => {
            const res = await raw("GET", `/v1/usage/events${query({ ...params, format: "csv", limit: 1000 })}`);
            const url = URL.createObjectURL(await res.blob());
            const a = document.createElement("a");
            a.href = url;
            a.download = "usage-events.csv";
            a.click();
            setTimeout(() => URL.revokeObjectURL(url), 1000);
          }}
        >
          Export CSV
        </Action>
      </form>
      <Paged
        label="Events"
        deps={[filters.kind, filters.key_id, filters.from, filters.to]}
        fetchPage={async (cursor) => {
          const r = await get<{ events: UsageEvent[]; next_cursor: string | null }>(`/v1/usage/events${query({ ...params, cursor, limit: 25 })}`);
          return { rows: r.events, next: r.next_cursor };
        }}
        empty={<Empty title="No events match">Metered calls (inference, sandboxes, MCP tools, memory…) appear here with their cost. Widen the filters, or make a call with one of your keys.</Empty>}
      >
        {(rows) => (
          <Table
            caption="Usage events, newest first"
            rows={rows}
            rowKey={(e) => e.id}
            columns={[
              { label: "When", cell: (e) => when(e.created_at) },
              { label: "Kind", cell: (e) => e.kind },
              { label: "Resource", cell: (e) => e.resource ?? "—" },
              { label: "Key", cell: (e) => <span class="mono small">{e.key_id ?? "—"}</span> },
              { label: "Status", cell: (e) => <Status value={e.status} /> },
              { label: "Cost", cell: (e) => usd(e.cost_micro_usd) },
              {
                label: "Units",
                cell: (e) => (
                  <span class="small">
                    {Object.entries(e.units)
                      .filter(([, v]) => typeof v === "number")
                      .map(([k, v]) => `${k} ${v}`)
                      .join(" · ")}
                  </span>
                ),
              },
            ]}
          />
        )}
      </Paged>
    </Page>
  );
}
