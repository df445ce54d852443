/** Deposits: where to send USDT (treasury, chains, a QR code), claiming a transfer, and the pending and credited list. */
import { get, post } from "../api.ts";
import { usd, when } from "../format.ts";
import { Action, CopyButton, Empty, Field, Form, LocalPages, Page, Qr, Show, Status, Table, useLoad } from "../ui.tsx";

interface Methods {
  deposits_enabled: boolean;
  treasury: string | null;
  chains: { name: string; chain_id: number; asset: string; token: string; decimals: number; confirmations: number }[];
}

interface Deposit {
  id: string;
  status: string;
  chain: string;
  tx_hash: string;
  amount_micro_usd: number;
  confirmations: number;
  required_confirmations: number;
  explorer_url: string | null;
  last_error: string | null;
  created_at: string;
  credited_at: string | null;
}

export function Deposits() {
  const methods = useLoad(() => get<Methods>("/v1/billing/methods"));
  const deposits = useLoad(() => get<Deposit[]>("/v1/billing/deposits"));
  return (
    <Page title="Deposits" intro="Credit is bought with USDT sent to the deployment's treasury; each transfer is credited once it has enough confirmations.">
      <Show loaded={methods}>
        {(m) =>
          !m.deposits_enabled || !m.treasury ? (
            <Empty title="Deposits are not configured on this deployment">The operator sets a treasury address and at least one chain (billing.treasury and billing.chains in svc.toml). Until then, credit comes from operator grants.</Empty>
          ) : (
            <div class="cards">
              <div class="card">
                <h2>Send USDT to</h2>
                <p class="mono wrap" id="treasury">
                  {m.treasury}
                </p>
                <CopyButton text={m.treasury} label="Copy address" />
                <Qr text={`ethereum:${m.treasury}`} label={`QR code of the treasury address ${m.treasury}`} />
              </div>
              <div class="card">
                <h2>Accepted chains</h2>
                <ul>
                  {m.chains.map((c) => (
                    <li key={c.chain_id}>
                      <strong>{c.name}</strong> (chain {c.chain_id}): {c.asset} at <span class="mono small">{c.token}</span>, credited after {c.confirmations} confirmations
                    </li>
                  ))}
                </ul>
              </div>
            </div>
          )
        }
      </Show>
      <Form
        class="panel"
        label="Claim a transfer"
        onSubmit={async (d) => {
          await post("/v1/billing/deposits", { chain: String(d.get("chain")), tx_hash: String(d.get("tx_hash")).trim() });
          deposits.reload();
        }}
      >
        <h2>Claim a transfer</h2>
        <p class="muted">Sent USDT from a wallet svc does not know yet? Give the transaction hash; the transfer must pay the treasury.</p>
        <div class="row">
          <Field id="claim-chain" label="Chain">
            <select id="claim-chain" name="chain">
              {(methods.data?.chains ?? []).map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name}
                </option>
              ))}
            </select>
          </Field>
          <Field id="claim-tx" label="Transaction hash">
            <input id="claim-tx" name="tx_hash" required pattern="0x[0-9a-fA-F]{64}" title="0x followed by 64 hex digits" size={40} />
          </Field>
        </div>
        <button type="submit">Claim</button>
      </Form>
      <h2>Deposits</h2>
      <Action run={async () => (await post("/v1/billing/deposits/refresh"), deposits.reload())}>Check pending now</Action>
      <Show loaded={deposits}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty title="No deposits yet">Send USDT to the treasury from a wallet linked to this account, or claim the transfer above.</Empty>
          ) : (
            <LocalPages rows={rows} label="Deposits">
              {(page) => (
                <Table
                  caption="Deposits, newest first"
                  rows={page}
                  rowKey={(d) => d.id}
                  columns={[
                    { label: "When", cell: (d) => when(d.created_at) },
                    { label: "Chain", cell: (d) => d.chain },
                    { label: "Amount", cell: (d) => usd(d.amount_micro_usd) },
                    {
                      label: "Status",
                      cell: (d) => (
                        <>
                          <Status value={d.status} />
                          {d.last_error && <div class="muted small">{d.last_error}</div>}
                        </>
                      ),
                    },
                    { label: "Confirmations", cell: (d) => `${d.confirmations} / ${d.required_confirmations}` },
                    {
                      label: "Transaction",
                      cell: (d) => <span class="mono small">{d.explorer_url ? <a href={d.explorer_url}>{d.tx_hash.slice(0, 14)}…</a> : `${d.tx_hash.slice(0, 14)}…`}</span>,
                    },
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
