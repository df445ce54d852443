/** Overview: spendable and held credit, this month's spend against the keys' caps, 30 days of spend, recent receipts. */
import { get } from "../api.ts";
import { usd } from "../format.ts";
import { BarChart, Empty, Page, Show, Table, useLoad } from "../ui.tsx";
import { ReceiptTable } from "./receipts.tsx";
import type { Balance, Key, Receipt, UsageSummary } from "./types.ts";

export function Overview() {
  const loaded = useLoad(() =>
    Promise.all([get<Balance>("/v1/billing/balance"), get<UsageSummary>("/v1/usage?days=30"), get<Key[]>("/v1/keys"), get<{ receipts: Receipt[] }>("/v1/receipts?limit=5")]),
  );
  return (
    <Page title="Overview">
      <Show loaded={loaded}>
        {([balance, usage, keys, { receipts }]) => {
          const live = keys.filter((k) => k.status !== "revoked");
          const monthSpend = live.filter((k) => k.parent_id === null).reduce((s, k) => s + k.spent_this_month_micro_usd, 0);
          const capped = live.filter((k) => k.monthly_cap_micro_usd !== null);
          return (
            <>
              <div class="cards">
                <div class="card">
                  <h2>Spendable credit</h2>
                  <p class="big" id="spendable">
                    {usd(balance.spendable_micro_usd)}
                  </p>
                  <p class="muted">
                    {usd(balance.held_micro_usd)} held by calls in flight · balance {usd(balance.balance_micro_usd)}
                  </p>
                </div>
                <div class="card">
                  <h2>Spent this month</h2>
                  <p class="big">{usd(monthSpend)}</p>
                  <p class="muted">across {live.length} live keys</p>
                </div>
                <div class="card">
                  <h2>Last 30 days</h2>
                  <p class="big">{usd(usage.totals.cost_micro_usd)}</p>
                  <p class="muted">{usage.totals.events} metered events</p>
                </div>
              </div>
              {balance.balance_micro_usd === 0 && (
                <Empty title="No credit yet">
                  Deposit USDT to the treasury on the <a href="/console/deposits">Deposits</a> page; calls are refused with 402 until the account holds credit.
                </Empty>
              )}
              <h2>Spend per day</h2>
              <BarChart label="Spend per UTC day, last 30 days" data={usage.daily.map((d) => ({ label: d.date, value: d.cost_micro_usd }))} format={usd} />
              <h2>Monthly caps</h2>
              {capped.length === 0 ? (
                <Empty title="No key has a monthly cap">
                  Set one when you <a href="/console/keys">mint a key</a>: a capped key is refused (402) once its month's spend reaches the cap.
                </Empty>
              ) : (
                <Table
                  caption="Keys with a monthly cap"
                  rows={capped}
                  rowKey={(k) => k.id}
                  columns={[
                    { label: "Key", cell: (k) => k.name ?? k.prefix },
                    { label: "Spent this month", cell: (k) => usd(k.spent_this_month_micro_usd) },
                    { label: "Cap", cell: (k) => usd(k.monthly_cap_micro_usd!) },
                    {
                      label: "Used",
                      cell: (k) => {
                        const used = Math.min(100, Math.round((k.spent_this_month_micro_usd / Math.max(1, k.monthly_cap_micro_usd!)) * 100));
                        return (
                          <>
                            <meter min={0} max={100} value={used} aria-label={`${k.name ?? k.prefix}: ${used}% of its cap`} /> {used}%
                          </>
                        );
                      },
                    },
                  ]}
                />
              )}
              <h2>Recent receipts</h2>
              {receipts.length === 0 ? (
                <Empty title="No receipts yet">
                  Every billable call returns a signed receipt. <a href="/console/keys">Mint an API key</a> and make a call, e.g. a chat completion with the openai SDK pointed at this server's /v1.
                </Empty>
              ) : (
                <ReceiptTable rows={receipts} />
              )}
            </>
          );
        }}
      </Show>
    </Page>
  );
}
