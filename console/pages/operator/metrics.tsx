/** Operator metrics: paying accounts, spend and credit by window, events by kind (GET /v1/admin/metrics). */
import { get } from "../../api.ts";
import { usd, when } from "../../format.ts";
import { BarChart, Page, Show, Table, useLoad } from "../../ui.tsx";

type Windows = Record<"24h" | "7d" | "30d" | "all_time", number>;

interface Metrics {
  generated_at: string;
  billing_enforced: boolean;
  accounts: { total: number; suspended: number; paying: number };
  spend_micro_usd: Windows;
  credited_micro_usd: Windows;
  events_by_kind: { "24h": Record<string, number>; all_time: Record<string, number> };
}

export function OperatorMetrics() {
  const loaded = useLoad(() => get<Metrics>("/v1/admin/metrics"));
  return (
    <Page title="Metrics">
      <Show loaded={loaded}>
        {(m) => (
          <>
            <div class="cards">
              <div class="card">
                <h2>Accounts</h2>
                <p class="big" id="accounts-total">
                  {m.accounts.total}
                </p>
                <p class="muted">
                  {m.accounts.paying} paying · {m.accounts.suspended} suspended
                </p>
              </div>
              <div class="card">
                <h2>Spend, 24 h</h2>
                <p class="big">{usd(m.spend_micro_usd["24h"])}</p>
                <p class="muted">billing {m.billing_enforced ? "enforced" : "not enforced"}</p>
              </div>
              <div class="card">
                <h2>Spend, 30 days</h2>
                <p class="big">{usd(m.spend_micro_usd["30d"])}</p>
                <p class="muted">all time {usd(m.spend_micro_usd.all_time)}</p>
              </div>
            </div>
            <h2>Spend and credit by window</h2>
            <Table
              caption="Spend and credit by window"
              rows={(["24h", "7d", "30d", "all_time"] as const).map((w) => ({ w, spend: m.spend_micro_usd[w], credited: m.credited_micro_usd[w] }))}
              rowKey={(r) => r.w}
              columns={[
                { label: "Window", cell: (r) => r.w.replace("_", " ") },
                { label: "Spend", cell: (r) => usd(r.spend) },
                { label: "Credited", cell: (r) => usd(r.credited) },
              ]}
            />
            <h2>Events by kind, 24 h</h2>
            {Object.keys(m.events_by_kind["24h"]).length === 0 ? (
              <p class="muted">No metered events in the last 24 hours.</p>
            ) : (
              <BarChart label="Metered events by kind, last 24 hours" data={Object.entries(m.events_by_kind["24h"]).map(([label, value]) => ({ label, value }))} format={(v) => `${v} events`} />
            )}
            <p class="muted small">As of {when(m.generated_at)}</p>
          </>
        )}
      </Show>
    </Page>
  );
}
