/** Orgs: the organisations the account belongs to, creating one, its members and inviting a wallet. */
import { useState } from "preact/hooks";
import { get, post } from "../api.ts";
import { when } from "../format.ts";
import { Empty, Field, Form, Page, Show, Status, Table, useLoad } from "../ui.tsx";

interface Org {
  id: string;
  name: string;
  role: string;
  member_count: number;
  created_at: string;
}

interface Member {
  account_id: string;
  role: string;
  wallet: string | null;
  joined_at: string;
}

function Members({ org }: { org: Org }) {
  const loaded = useLoad(() => get<Member[]>(`/v1/orgs/${org.id}/members`), [org.id]);
  const [sent, setSent] = useState<string | null>(null);
  const canInvite = org.role === "owner" || org.role === "admin";
  return (
    <div class="panel">
      <h3>Members of {org.name}</h3>
      <Show loaded={loaded}>
        {(rows) => (
          <Table
            caption={`Members of ${org.name}`}
            rows={rows}
            rowKey={(m) => m.account_id}
            columns={[
              { label: "Account", cell: (m) => <span class="mono small">{m.account_id}</span> },
              { label: "Wallet", cell: (m) => <span class="mono small">{m.wallet ?? "—"}</span> },
              { label: "Role", cell: (m) => <Status value={m.role} /> },
              { label: "Joined", cell: (m) => when(m.joined_at) },
            ]}
          />
        )}
      </Show>
      {canInvite && (
        <Form
          label={`Invite to ${org.name}`}
          onSubmit={async (d) => {
            const inv = await post<{ id: string }>(`/v1/orgs/${org.id}/invites`, { wallet_address: String(d.get("wallet")).trim(), role: String(d.get("role")) });
            setSent(`Invite ${inv.id} sent: the wallet's owner accepts it after signing in.`);
          }}
        >
          <div class="row">
            <Field id={`invite-${org.id}`} label="Invite a wallet">
              <input id={`invite-${org.id}`} name="wallet" required pattern="0x[0-9a-fA-F]{40}" title="a 0x address" size={42} />
            </Field>
            <Field id={`role-${org.id}`} label="Role">
              <select id={`role-${org.id}`} name="role" defaultValue="member">
                <option>member</option>
                <option>admin</option>
              </select>
            </Field>
          </div>
          <button type="submit">Invite</button>
          {sent && <p role="status">{sent}</p>}
        </Form>
      )}
    </div>
  );
}

export function Orgs() {
  const loaded = useLoad(() => get<Org[]>("/v1/orgs"));
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Page title="Orgs" intro="An org shares access between accounts, each member with a role.">
      <Form
        class="panel row"
        label="Create an org"
        onSubmit={async (d) => {
          await post("/v1/orgs", { name: String(d.get("name")).trim() });
          loaded.reload();
        }}
      >
        <Field id="org-name" label="New org name">
          <input id="org-name" name="name" required maxLength={100} />
        </Field>
        <button type="submit">Create org</button>
      </Form>
      <Show loaded={loaded}>
        {(orgs) =>
          orgs.length === 0 ? (
            <Empty title="No orgs">Create one above, then invite other accounts by wallet address.</Empty>
          ) : (
            <ul class="cards-list">
              {orgs.map((o) => (
                <li key={o.id} class="card">
                  <p>
                    <strong>{o.name}</strong> <Status value={o.role} /> <span class="muted">{o.member_count} members</span>
                  </p>
                  <button type="button" aria-expanded={open === o.id} onClick={() => setOpen(open === o.id ? null : o.id)}>
                    {open === o.id ? "Hide members" : "Members"}
                  </button>
                  {open === o.id && <Members org={o} />}
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </Page>
  );
}
