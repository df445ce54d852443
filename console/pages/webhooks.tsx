/** Webhooks: create (the signing secret shown once), the deliveries of each, replay what was missed, test, re-enable, delete. */
import { useState } from "preact/hooks";
import { del, get, post } from "../api.ts";
import { when } from "../format.ts";
import { Action, CopyButton, Empty, Field, Form, LocalPages, Page, Show, Status, Table, useLoad } from "../ui.tsx";

interface Webhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: string;
  created_at: string;
  consecutive_failures: number;
}

interface Delivery {
  event_id: string;
  event_type: string;
  status: string;
  response_status: number | null;
  attempts: number;
  delivered_at: string | null;
  last_error: string | null;
  created_at: string;
}

const EVENTS = ["*", "receipt_minted", "deposit_credited", "balance_low", "spend_cap_reached", "key_created", "key_revoked", "batch_completed", "batch_failed", "sandbox_failed"];

function Deliveries({ hook }: { hook: Webhook }) {
  const loaded = useLoad(() => get<Delivery[]>(`/v1/webhooks/${hook.id}/deliveries`), [hook.id]);
  const [replayed, setReplayed] = useState<string | null>(null);
  const [since, setSince] = useState(() => new Date(Date.now() - 86_400_000).toISOString().slice(0, 16));
  return (
    <div class="panel" aria-label={`Deliveries of ${hook.url}`}>
      <h3>Deliveries</h3>
      <div class="row">
        <label>
          Replay events since <input type="datetime-local" value={since} id={`since-${hook.id}`} onInput={(e) => setSince((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <Action
          run={async () => {
            const r = await post<{ queued: number; more: boolean }>(`/v1/webhooks/${hook.id}/replay`, { since: new Date(since).toISOString() });
            setReplayed(`Queued ${r.queued} event${r.queued === 1 ? "" : "s"} again${r.more ? "; more remain: replay again" : ""}.`);
            loaded.reload();
          }}
        >
          Replay
        </Action>
        <Action run={async () => (await post(`/v1/webhooks/${hook.id}/test`), loaded.reload())}>Send a test event</Action>
        <button type="button" class="small" onClick={loaded.reload}>
          Refresh
        </button>
      </div>
      {replayed && (
        <p role="status" class="note replayed">
          {replayed}
        </p>
      )}
      <Show loaded={loaded}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty title="No deliveries yet">Events the webhook subscribes to are delivered here as they happen; send a test event to try the endpoint.</Empty>
          ) : (
            <LocalPages rows={rows} label="Deliveries" size={10}>
              {(page) => (
                <Table
                  caption="Deliveries, newest first"
                  rows={page}
                  rowKey={(d) => `${d.event_id}-${d.created_at}`}
                  columns={[
                    {
                      label: "Event",
                      cell: (d) => (
                        <>
                          {d.event_type} <span class="mono muted small">{d.event_id}</span>
                        </>
                      ),
                    },
                    {
                      label: "Status",
                      cell: (d) => (
                        <>
                          <Status value={d.status} />
                          {d.last_error && <div class="muted small">{d.last_error}</div>}
                        </>
                      ),
                    },
                    { label: "HTTP", cell: (d) => d.response_status ?? "—" },
                    { label: "Attempts", cell: (d) => d.attempts },
                    { label: "Queued", cell: (d) => when(d.created_at) },
                  ]}
                />
              )}
            </LocalPages>
          )
        }
      </Show>
    </div>
  );
}

export function Webhooks() {
  const loaded = useLoad(() => get<Webhook[]>("/v1/webhooks"));
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Page title="Webhooks" intro="svc POSTs signed events to your endpoints (the signature scheme is in docs/webhooks.md), retries with backoff, and keeps every delivery.">
      {secret && (
        <div class="secret" role="region" aria-label="Signing secret">
          <h2>Signing secret</h2>
          <p>Shown once: verify each delivery's signature with it.</p>
          <code class="mono">{secret}</code> <CopyButton text={secret} />{" "}
          <button type="button" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      )}
      <Form
        class="panel"
        label="Add a webhook"
        onSubmit={async (d) => {
          const created = await post<Webhook & { secret: string }>("/v1/webhooks", { url: String(d.get("url")).trim(), events: d.getAll("event").map(String), description: String(d.get("description") ?? "").trim() || null });
          setSecret(created.secret);
          loaded.reload();
        }}
      >
        <h2>Add a webhook</h2>
        <Field id="hook-url" label="Endpoint URL">
          <input id="hook-url" name="url" type="url" required placeholder="https://example.com/svc-events" size={40} />
        </Field>
        <fieldset>
          <legend>Events</legend>
          <div class="checks">
            {EVENTS.map((ev) => (
              <label key={ev}>
                <input type="checkbox" name="event" value={ev} defaultChecked={ev === "*"} /> {ev === "*" ? "every event" : ev}
              </label>
            ))}
          </div>
        </fieldset>
        <Field id="hook-description" label="Description">
          <input id="hook-description" name="description" maxLength={200} />
        </Field>
        <button type="submit" class="primary">
          Add webhook
        </button>
      </Form>
      <Show loaded={loaded}>
        {(hooks) =>
          hooks.length === 0 ? (
            <Empty title="No webhooks yet">Add an endpoint above to hear about deposits, low balances, spend caps and receipts as they happen.</Empty>
          ) : (
            <ul class="cards-list">
              {hooks.map((w) => (
                <li key={w.id} class="card" data-webhook={w.id}>
                  <p>
                    <strong class="wrap">{w.url}</strong> <Status value={w.status} />
                  </p>
                  <p class="muted small">
                    {w.events.join(", ")} · {w.consecutive_failures} failures in a row · added {when(w.created_at)}
                  </p>
                  <div class="row">
                    <button type="button" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                      {open === w.id ? "Hide deliveries" : "Deliveries"}
                    </button>
                    {w.status === "disabled" && <Action run={async () => (await post(`/v1/webhooks/${w.id}/enable`), loaded.reload())}>Enable</Action>}
                    <Action kind="danger" confirm={`Delete the webhook to ${w.url}?`} run={async () => (await del(`/v1/webhooks/${w.id}`), loaded.reload())}>
                      Delete
                    </Action>
                  </div>
                  {open === w.id && <Deliveries hook={w} />}
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </Page>
  );
}
