/**
 * Keys: mint (scopes, monthly cap, breaker; the secret shown once, with a copy button), rotate,
 * freeze and unfreeze, revoke (the cascade named before and after), and the delegation tree with
 * each subtree's spend this month.
 */
import { useState } from "preact/hooks";
import { del, get, post } from "../api.ts";
import { parseUsd, usd } from "../format.ts";
import { Action, CopyButton, Empty, Field, Form, Page, Show, Status, useLoad } from "../ui.tsx";
import type { Key } from "./types.ts";

const SCOPES = ["inference", "sandboxes", "state", "memory", "mailbox", "mcp", "billing:read", "keys:delegate", "pay", "post", "records", "services"];

/** A secret the API returned once: shown until dismissed, never kept anywhere else. */
function Secret({ title, secret, onDone }: { title: string; secret: string; onDone(): void }) {
  return (
    <div class="secret" role="region" aria-label={title}>
      <h2>{title}</h2>
      <p>Copy it now: svc keeps only its hash and cannot show it again.</p>
      <p>
        <code id="new-key" class="mono">
          {secret}
        </code>{" "}
        <CopyButton text={secret} />
      </p>
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}

function MintForm({ onMinted }: { onMinted(key: Key & { key: string }): void }) {
  return (
    <Form
      class="panel"
      label="Mint a key"
      onSubmit={async (data) => {
        const body: Record<string, unknown> = { scopes: data.getAll("scope").map(String) };
        const name = String(data.get("name") ?? "").trim();
        if (name) body.name = name;
        for (const [field, input] of [
          ["monthly_cap_micro_usd", "cap"],
          ["breaker_micro_usd_per_minute", "breaker"],
        ] as const) {
          const text = String(data.get(input) ?? "").trim();
          if (!text) continue;
          const v = parseUsd(text);
          if (typeof v === "string") throw new Error(`${field}: ${v}`);
          body[field] = v;
        }
        onMinted(await post<Key & { key: string }>("/v1/keys", body));
      }}
    >
      <h2>Mint a key</h2>
      <Field id="key-name" label="Name">
        <input id="key-name" name="name" maxLength={100} placeholder="e.g. research agent" />
      </Field>
      <fieldset>
        <legend>Scopes</legend>
        <div class="checks">
          {SCOPES.map((s) => (
            <label key={s}>
              <input type="checkbox" name="scope" value={s} defaultChecked={s === "inference"} /> {s}
            </label>
          ))}
        </div>
      </fieldset>
      <div class="row">
        <Field id="key-cap" label="Monthly cap (USD)" hint="Empty: no cap">
          <input id="key-cap" name="cap" inputMode="decimal" placeholder="25.00" aria-describedby="key-cap-hint" />
        </Field>
        <Field id="key-breaker" label="Circuit breaker (USD per minute)" hint="Empty: the deployment default">
          <input id="key-breaker" name="breaker" inputMode="decimal" placeholder="1.00" aria-describedby="key-breaker-hint" />
        </Field>
      </div>
      <button type="submit" class="primary" id="mint">
        Mint key
      </button>
    </Form>
  );
}

interface Node {
  key: Key;
  children: Node[];
  subtreeSpend: number;
}

function tree(keys: Key[]): Node[] {
  const nodes = new Map(keys.map((k) => [k.id, { key: k, children: [] as Node[], subtreeSpend: 0 }]));
  const roots: Node[] = [];
  for (const n of nodes.values()) {
    const parent = n.key.parent_id ? nodes.get(n.key.parent_id) : undefined;
    (parent ? parent.children : roots).push(n);
  }
  const sum = (n: Node): number => (n.subtreeSpend = n.key.spent_this_month_micro_usd + n.children.reduce((s, c) => s + sum(c), 0));
  roots.forEach(sum);
  return roots;
}

const descendants = (n: Node): Node[] => n.children.flatMap((c) => [c, ...descendants(c)]);

function KeyRows({ node, depth, reload, onSecret, onRevoked }: { node: Node; depth: number; reload(): void; onSecret(title: string, s: string): void; onRevoked(ids: string[]): void }) {
  const k = node.key;
  const live = k.status !== "revoked" && k.status !== "rotated";
  const below = descendants(node).filter((d) => d.key.status !== "revoked");
  return (
    <>
      <tr data-key={k.id}>
        <td>
          <span style={{ paddingInlineStart: `${depth * 1.25}rem` }} class="tree">
            {depth > 0 && "└ "}
            <strong>{k.name ?? "unnamed"}</strong> <span class="mono muted">{k.prefix}…</span>
          </span>
        </td>
        <td>
          <Status value={k.status} />
          {k.frozen_reason && <div class="muted small">{k.frozen_reason}</div>}
        </td>
        <td class="small">{k.scopes.join(", ")}</td>
        <td>
          {usd(k.spent_this_month_micro_usd)}
          {k.monthly_cap_micro_usd !== null && <span class="muted"> / {usd(k.monthly_cap_micro_usd)}</span>}
        </td>
        <td>{usd(node.subtreeSpend)}</td>
        <td class="buttons">
          {live && (
            <>
              <Action
                run={async () => {
                  const r = await post<{ key: string }>(`/v1/keys/${k.id}/rotate`);
                  onSecret(`Replacement for ${k.name ?? k.prefix}`, r.key);
                  reload();
                }}
              >
                Rotate
              </Action>
              {k.status === "frozen" ? (
                <Action run={async () => (await post(`/v1/keys/${k.id}/unfreeze`), reload())}>Unfreeze</Action>
              ) : (
                <Action run={async () => (await post(`/v1/keys/${k.id}/freeze`, {}), reload())}>Freeze</Action>
              )}
              <Action
                kind="danger"
                confirm={below.length ? `Revoke ${k.name ?? k.prefix} and the ${below.length} key(s) delegated under it (${below.map((d) => d.key.name ?? d.key.prefix).join(", ")})?` : `Revoke ${k.name ?? k.prefix}?`}
                run={async () => {
                  const r = await del<{ revoked_keys: string[] }>(`/v1/keys/${k.id}`);
                  onRevoked(r.revoked_keys);
                  reload();
                }}
              >
                Revoke{below.length ? ` (+${below.length})` : ""}
              </Action>
            </>
          )}
        </td>
      </tr>
      {node.children.map((c) => (
        <KeyRows key={c.key.id} node={c} depth={depth + 1} reload={reload} onSecret={onSecret} onRevoked={onRevoked} />
      ))}
    </>
  );
}

export function Keys() {
  const [showRevoked, setShowRevoked] = useState(false);
  const loaded = useLoad(() => get<Key[]>(`/v1/keys${showRevoked ? "?include_revoked=true" : ""}`), [showRevoked]);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const [revoked, setRevoked] = useState<string[] | null>(null);
  return (
    <Page title="Keys" intro="API keys (sk-svc_…) call svc on the account's credit. A delegated key is never more than its parent, and revoking a key revokes everything under it.">
      {secret && <Secret title={secret.title} secret={secret.value} onDone={() => setSecret(null)} />}
      {revoked && (
        <p class="note" role="status" id="revoked-note">
          Revoked {revoked.length} key{revoked.length === 1 ? "" : "s"}: <span class="mono">{revoked.join(", ")}</span>
        </p>
      )}
      <MintForm
        onMinted={(k) => {
          setSecret({ title: `New key ${k.name ?? k.prefix}`, value: k.key });
          loaded.reload();
        }}
      />
      <h2>The account's keys</h2>
      <label class="inline">
        <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked((e.currentTarget as HTMLInputElement).checked)} /> Show revoked keys
      </label>
      <Show loaded={loaded}>
        {(keys) =>
          keys.length === 0 ? (
            <Empty title="No keys yet">Mint one above, then call svc with it: the openai SDK with base_url set to this server's /v1 and the key as api_key.</Empty>
          ) : (
            <table>
              <caption class="sr-only">Keys, delegated keys indented under their parent</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Status</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">This month / cap</th>
                  <th scope="col">Subtree this month</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {tree(keys).map((n) => (
                  <KeyRows key={n.key.id} node={n} depth={0} reload={loaded.reload} onSecret={(title, value) => setSecret({ title, value })} onRevoked={setRevoked} />
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </Page>
  );
}
