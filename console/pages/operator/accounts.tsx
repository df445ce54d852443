/** Operator accounts: search by id or wallet, page, and for one account suspend or unsuspend and grant or take credit with a reason. */
import { useState } from "preact/hooks";
import { get, post, query } from "../../api.ts";
import { parseUsd, usd, when } from "../../format.ts";
import { Empty, Field, Form, Page, Paged, Show, Status, Table, useLoad } from "../../ui.tsx";

interface AdminAccount {
  id: string;
  created_at: string;
  suspended: boolean;
  suspended_reason: string | null;
  wallets: string[];
  balance_micro_usd: number;
  held_micro_usd: number;
  spendable_micro_usd: number;
  spent_this_month_micro_usd: number;
}

interface Detail extends AdminAccount {
  keys: { total: number; active: number };
  recent_entries: { id: string; kind: string; amount_micro_usd: number; memo: string | null; created_at: string }[];
}

export function OperatorAccounts() {
  const [q, setQ] = useState("");
  return (
    <Page title="Accounts">
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQ(String(new FormData(e.currentTarget as HTMLFormElement).get("q") ?? "").trim());
        }}
      >
        <label>
          Account id or wallet <input name="q" id="account-search" size={30} placeholder="acct_… or 0x…" />
        </label>
        <button type="submit">Search</button>
      </form>
      <Paged
        label="Accounts"
        deps={[q]}
        fetchPage={async (after) => {
          const r = await get<{ data: AdminAccount[]; has_more: boolean }>(`/v1/admin/accounts${query({ q, after, limit: 25 })}`);
          return { rows: r.data, next: r.has_more ? r.data[r.data.length - 1]!.id : null };
        }}
        empty={<Empty title={q ? "No account matches" : "No accounts yet"}>{q ? "Search by the start of an account id or a wallet address." : "Accounts appear when someone signs in with a wallet."}</Empty>}
      >
        {(rows) => (
          <Table
            caption="Accounts, newest first"
            rows={rows}
            rowKey={(a) => a.id}
            columns={[
              {
                label: "Account",
                cell: (a) => (
                  <a class="mono" href={`/console/operator/accounts/${a.id}`}>
                    {a.id}
                  </a>
                ),
              },
              { label: "Wallet", cell: (a) => <span class="mono small">{a.wallets[0] ?? "—"}</span> },
              { label: "Spendable", cell: (a) => usd(a.spendable_micro_usd) },
              { label: "This month", cell: (a) => usd(a.spent_this_month_micro_usd) },
              { label: "Status", cell: (a) => <Status value={a.suspended ? "suspended" : "active"} /> },
              { label: "Created", cell: (a) => when(a.created_at) },
            ]}
          />
        )}
      </Paged>
    </Page>
  );
}

export function OperatorAccount({ id }: { id: string }) {
  const loaded = useLoad(() => get<Detail>(`/v1/admin/accounts/${encodeURIComponent(id)}`), [id]);
  return (
    <Page title={`Account ${id}`}>
      <p>
        <a href="/console/operator/accounts">← All accounts</a>
      </p>
      <Show loaded={loaded}>
        {(a) => (
          <>
            <dl class="facts">
              <dt>Status</dt>
              <dd>
                <Status value={a.suspended ? "suspended" : "active"} /> {a.suspended_reason && <span class="muted">{a.suspended_reason}</span>}
              </dd>
              <dt>Wallets</dt>
              <dd class="mono small">{a.wallets.join(", ") || "—"}</dd>
              <dt>Balance</dt>
              <dd id="account-balance">
                {usd(a.balance_micro_usd)} ({usd(a.held_micro_usd)} held, {usd(a.spendable_micro_usd)} spendable)
              </dd>
              <dt>Spent this month</dt>
              <dd>{usd(a.spent_this_month_micro_usd)}</dd>
              <dt>Keys</dt>
              <dd>
                {a.keys.active} usable of {a.keys.total}
              </dd>
            </dl>
            <Form
              class="panel"
              label={a.suspended ? "Unsuspend" : "Suspend"}
              onSubmit={async (d) => {
                const reason = String(d.get("reason") ?? "").trim();
                await post("/v1/admin/accounts/suspend", { account_id: a.id, suspended: !a.suspended, ...(reason ? { reason } : {}) });
                loaded.reload();
              }}
            >
              <h2>{a.suspended ? "Lift the suspension" : "Suspend"}</h2>
              <p class="muted">A suspended account's keys and sessions are refused (403 account_suspended) until it is lifted.</p>
              <Field id="suspend-reason" label="Reason">
                <input id="suspend-reason" name="reason" maxLength={500} />
              </Field>
              <button type="submit" class={a.suspended ? "" : "danger"} id="suspend-toggle">
                {a.suspended ? "Unsuspend account" : "Suspend account"}
              </button>
            </Form>
            <Form
              class="panel"
              label="Adjust credit"
              onSubmit={async (d) => {
                const amount = parseUsd(String(d.get("amount") ?? ""));
                if (typeof amount === "string") throw new Error(`amount: ${amount}`);
                await post(`/v1/admin/accounts/${a.id}/credit`, { amount_micro_usd: amount, direction: String(d.get("direction")), reason: String(d.get("reason") ?? "").trim() });
                loaded.reload();
              }}
            >
              <h2>Grant or take credit</h2>
              <div class="row">
                <Field id="credit-direction" label="Direction">
                  <select id="credit-direction" name="direction">
                    <option value="grant">grant</option>
                    <option value="debit">take</option>
                  </select>
                </Field>
                <Field id="credit-amount" label="Amount (USD)">
                  <input id="credit-amount" name="amount" required inputMode="decimal" placeholder="10.00" />
                </Field>
                <Field id="credit-reason" label="Reason (kept on the ledger)">
                  <input id="credit-reason" name="reason" required maxLength={500} />
                </Field>
              </div>
              <button type="submit">Apply</button>
            </Form>
            <h2>Recent ledger entries</h2>
            {a.recent_entries.length === 0 ? (
              <p class="muted">No ledger entries yet.</p>
            ) : (
              <Table
                caption="Recent ledger entries"
                rows={a.recent_entries}
                rowKey={(e) => e.id}
                columns={[
                  { label: "When", cell: (e) => when(e.created_at) },
                  { label: "Kind", cell: (e) => e.kind },
                  { label: "Amount", cell: (e) => usd(e.amount_micro_usd) },
                  { label: "Memo", cell: (e) => e.memo ?? "—" },
                ]}
              />
            )}
          </>
        )}
      </Show>
    </Page>
  );
}
