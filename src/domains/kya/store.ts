/** The rows of kya_credentials: the only file that names the table in SQL. */
import type { Context } from "../../context.ts";

export type BindingKind = "key" | "mandate";
export type CredentialStatus = "active" | "superseded" | "revoked";

export interface KyaRow {
  seq: number;
  id: string;
  account_id: string;
  handle: string;
  binding_kind: BindingKind;
  binding_id: string;
  credential: string;
  signature: string;
  signer: string;
  status: CredentialStatus;
  supersedes: string | null;
  superseded_by: string | null;
  issued_at: number;
  superseded_at: number | null;
  revoked_at: number | null;
}

export type NewCredential = Pick<KyaRow, "id" | "account_id" | "handle" | "binding_kind" | "binding_id" | "credential" | "signature" | "signer" | "supersedes" | "issued_at">;

/** The account that first issued under the handle (a handle stays with it), or null. */
export function handleOwner(ctx: Context, handle: string): string | null {
  return ctx.db.query<{ account_id: string }, [string]>("SELECT account_id FROM kya_credentials WHERE handle = ? ORDER BY seq LIMIT 1").get(handle)?.account_id ?? null;
}

export function activeOf(ctx: Context, handle: string): KyaRow | null {
  return ctx.db.query<KyaRow, [string]>("SELECT * FROM kya_credentials WHERE handle = ? AND status = 'active'").get(handle);
}

/** The handle's newest credential, whatever its status. */
export function latestOf(ctx: Context, handle: string): KyaRow | null {
  return ctx.db.query<KyaRow, [string]>("SELECT * FROM kya_credentials WHERE handle = ? ORDER BY seq DESC LIMIT 1").get(handle);
}

export function markSuperseded(ctx: Context, id: string, by: string, at: number): void {
  ctx.db.query("UPDATE kya_credentials SET status = 'superseded', superseded_by = ?, superseded_at = ? WHERE id = ? AND status = 'active'").run(by, at, id);
}

export function insertCredential(ctx: Context, c: NewCredential): void {
  ctx.db
    .query(
      `INSERT INTO kya_credentials (id, account_id, handle, binding_kind, binding_id, credential, signature, signer, status, supersedes, issued_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?)`,
    )
    .run(c.id, c.account_id, c.handle, c.binding_kind, c.binding_id, c.credential, c.signature, c.signer, c.supersedes, c.issued_at);
}

export function credentialById(ctx: Context, id: string): KyaRow | null {
  return ctx.db.query<KyaRow, [string]>("SELECT * FROM kya_credentials WHERE id = ?").get(id);
}

export function credentialsOf(ctx: Context, accountId: string, limit: number): KyaRow[] {
  return ctx.db.query<KyaRow, [string, number]>("SELECT * FROM kya_credentials WHERE account_id = ? ORDER BY seq DESC LIMIT ?").all(accountId, limit);
}

/** active or superseded → revoked; false when it was already revoked. */
export function markRevoked(ctx: Context, id: string, at: number): boolean {
  return ctx.db.query("UPDATE kya_credentials SET status = 'revoked', revoked_at = ? WHERE id = ? AND status != 'revoked'").run(at, id).changes > 0;
}
