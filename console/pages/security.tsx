/** Sign-in and sessions: linked wallets, passkeys (register, remove), live sessions. */
import { startRegistration } from "@simplewebauthn/browser";
import { del, get, post } from "../api.ts";
import { when } from "../format.ts";
import type { AppState } from "../main.tsx";
import { Action, Empty, Page, Show, Table, useLoad } from "../ui.tsx";
import { signWithWallet } from "./signin.tsx";

interface Session {
  id: string;
  method: string;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string | null;
  current: boolean;
}

interface Passkey {
  id: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
}

interface Wallet {
  address: string;
  created_at: string;
}

export function Security({ state }: { state: AppState }) {
  const sessions = useLoad(() => get<Session[]>("/v1/auth/sessions"));
  const wallets = useLoad(() => get<Wallet[]>("/v1/auth/wallets"));
  const passkeys = useLoad(() => (state.session.passkeys ? get<Passkey[]>("/v1/auth/passkeys") : Promise.resolve(null)));
  return (
    <Page title="Sign-in and sessions">
      <h2>Wallets</h2>
      <Show loaded={wallets}>
        {(rows) => (
          <Table caption="Linked wallets" rows={rows} rowKey={(w) => w.address} columns={[{ label: "Address", cell: (w) => <span class="mono">{w.address}</span> }, { label: "Linked", cell: (w) => when(w.created_at) }]} />
        )}
      </Show>
      <Action
        run={async () => {
          await post("/v1/auth/wallets", await signWithWallet(`Link this wallet to svc account ${state.session.account_id}`));
          wallets.reload();
        }}
      >
        Link the wallet in this browser
      </Action>
      <h2>Passkeys</h2>
      <Show loaded={passkeys}>
        {(rows) =>
          rows === null ? (
            <p class="muted">Passkeys are not configured on this deployment.</p>
          ) : (
            <>
              {rows.length === 0 ? (
                <Empty title="No passkeys">Add one to sign in with this device's fingerprint, face or PIN instead of a wallet.</Empty>
              ) : (
                <Table
                  caption="Passkeys"
                  rows={rows}
                  rowKey={(p) => p.id}
                  columns={[
                    { label: "Name", cell: (p) => p.name ?? "unnamed" },
                    { label: "Added", cell: (p) => when(p.created_at) },
                    { label: "Last used", cell: (p) => when(p.last_used_at) },
                    { label: "", cell: (p) => <Action kind="danger" confirm="Remove this passkey?" run={async () => (await del(`/v1/auth/passkeys/${p.id}`), passkeys.reload())}>Remove</Action> },
                  ]}
                />
              )}
              <Action
                run={async () => {
                  const optionsJSON = await post<Parameters<typeof startRegistration>[0]["optionsJSON"]>("/v1/auth/passkey/register/options");
                  const response = await startRegistration({ optionsJSON });
                  await post("/v1/auth/passkey/register/verify", { response, name: "console" });
                  passkeys.reload();
                }}
              >
                <span id="add-passkey">Add a passkey</span>
              </Action>
            </>
          )
        }
      </Show>
      <h2>Sessions</h2>
      <Show loaded={sessions}>
        {(rows) => (
          <Table
            caption="Live sessions"
            rows={rows}
            rowKey={(s) => s.id}
            columns={[
              { label: "Signed in with", cell: (s) => `${s.method}${s.current ? " (this browser)" : ""}` },
              { label: "Browser", cell: (s) => <span class="small">{s.user_agent ?? "—"}</span> },
              { label: "Since", cell: (s) => when(s.created_at) },
              { label: "Last seen", cell: (s) => when(s.last_seen_at) },
            ]}
          />
        )}
      </Show>
      <Action
        kind="danger"
        confirm="Sign out every session of this account, this one included?"
        run={async () => {
          await post("/v1/auth/logout-all");
          await state.refresh();
        }}
      >
        Sign out everywhere
      </Action>
    </Page>
  );
}
