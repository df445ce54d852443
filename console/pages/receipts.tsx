/**
 * Receipts: the account's signed receipts, paged and filtered by kind; one receipt's payload
 * decoded, and a Verify button that recovers the signer in this browser (verify.ts) and compares
 * it with the signers svc publishes.
 */
import { useState } from "preact/hooks";
import { del, get, post, query } from "../api.ts";
import { usd, when } from "../format.ts";
import { Action, CopyButton, Empty, ErrorNote, Page, Paged, Show, Status, Table, useLoad } from "../ui.tsx";
import { decodeReceipt, type PublishedSigner, type Verdict, verifyReceipt } from "../verify.ts";
import type { Receipt } from "./types.ts";

/** Receipts, newest first, each linking to its page (the overview shows the latest five this way). */
export function ReceiptTable({ rows }: { rows: Receipt[] }) {
  return (
    <Table
      caption="Receipts, newest first"
      rows={rows}
      rowKey={(r) => r.id}
      columns={[
        {
          label: "Receipt",
          cell: (r) => (
            <a class="mono" href={`/console/receipts/${r.id}`}>
              {r.id}
            </a>
          ),
        },
        { label: "Kind", cell: (r) => r.kind },
        { label: "Status", cell: (r) => <Status value={r.status} /> },
        { label: "Cost", cell: (r) => usd(r.cost_micro_usd) },
        { label: "Run", cell: (r) => <span class="mono small">{r.run_id ?? "—"}</span> },
        { label: "When", cell: (r) => when(r.created_at) },
      ]}
    />
  );
}

export function Receipts() {
  const [kind, setKind] = useState("");
  return (
    <Page title="Receipts" intro="Every billable call is signed by svc's key: metadata only (what, when, cost, units), never content. Anyone can check a receipt without trusting this server.">
      <div class="filters">
        <label>
          Kind{" "}
          <select value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">all</option>
            {["inference", "sandbox", "mcp_call", "memory", "state", "agent_run", "batch"].map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Paged
        label="Receipts"
        deps={[kind]}
        fetchPage={async (cursor) => {
          const r = await get<{ receipts: Receipt[]; next_cursor: string | null }>(`/v1/receipts${query({ kind, cursor, limit: 20 })}`);
          return { rows: r.receipts, next: r.next_cursor };
        }}
        empty={<Empty title={kind ? `No ${kind} receipts` : "No receipts yet"}>Receipts appear here as soon as a key makes a billable call.</Empty>}
      >
        {(rows) => <ReceiptTable rows={rows} />}
      </Paged>
    </Page>
  );
}

function VerifyPanel({ receipt }: { receipt: Receipt }) {
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <div class="panel">
      <h2>Verify</h2>
      <p>
        Recovers the signing address from the signature <em>in this browser</em> (secp256k1 and keccak-256 bundled in the page) and compares it with the signers svc publishes at{" "}
        <a href="/v1/receipts/pubkey">/v1/receipts/pubkey</a>.
      </p>
      <button
        type="button"
        class="primary"
        id="verify"
        onClick={async () => {
          setError(null);
          try {
            const { signers } = await get<{ signers: PublishedSigner[] }>("/v1/receipts/pubkey");
            setVerdict(verifyReceipt(receipt.receipt, receipt.signature, signers));
          } catch (e) {
            setError(e);
          }
        }}
      >
        Verify in this browser
      </button>
      <ErrorNote error={error} />
      {verdict && (
        <p id="verdict" class={verdict.valid ? "ok" : "error"} role="status">
          {verdict.valid ? (
            <>
              Valid: signed by <span class="mono">{verdict.recovered}</span>
              {verdict.signer.valid_until ? " (a retired signer, within its window)" : ", svc's current signer"}.
            </>
          ) : (
            <>
              Not valid: {verdict.reason}
              {verdict.recovered && (
                <>
                  {" "}
                  (recovered <span class="mono">{verdict.recovered}</span>)
                </>
              )}
            </>
          )}
        </p>
      )}
    </div>
  );
}

export function ReceiptDetail({ id }: { id: string }) {
  const loaded = useLoad(() => get<Receipt>(`/v1/receipts/${encodeURIComponent(id)}`), [id]);
  return (
    <Page title={`Receipt ${id}`}>
      <p>
        <a href="/console/receipts">← All receipts</a>
      </p>
      <Show loaded={loaded}>
        {(r) => (
          <>
            <dl class="facts">
              <dt>Kind</dt>
              <dd>{r.kind}</dd>
              <dt>Status</dt>
              <dd>
                <Status value={r.status} />
              </dd>
              <dt>Cost</dt>
              <dd>{usd(r.cost_micro_usd)}</dd>
              <dt>When</dt>
              <dd>{when(r.created_at)}</dd>
              <dt>Signer</dt>
              <dd class="mono">{r.signer}</dd>
              <dt>Shared</dt>
              <dd>
                {r.shared ? (
                  <>
                    yes, at <a href={r.share_url!}>{r.share_url}</a>{" "}
                    <Action run={async () => (await del(`/v1/receipts/${r.id}/share`), loaded.reload())}>
                      Stop sharing
                    </Action>
                  </>
                ) : (
                  <>
                    no <Action run={async () => (await post(`/v1/receipts/${r.id}/share`), loaded.reload())}>Share publicly</Action>
                  </>
                )}
              </dd>
            </dl>
            <VerifyPanel receipt={r} />
            <h2>Payload (decoded from the signed string)</h2>
            <pre class="json" id="payload" tabIndex={0}>
              {JSON.stringify(decodeReceipt(r.receipt), null, 2)}
            </pre>
            <h2>The signed record</h2>
            <p class="small">
              receipt <CopyButton text={r.receipt} /> signature <CopyButton text={r.signature} />
            </p>
            <pre class="wrap mono small" tabIndex={0}>
              {r.receipt}
              {"\n"}
              {r.signature}
            </pre>
          </>
        )}
      </Show>
    </Page>
  );
}
