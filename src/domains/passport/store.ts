/** The rows of passports and passport_credentials: the only file that names the tables in SQL. */
import type { Context } from "../../context.ts";

export interface PassportRecord {
  accountId: string;
  handle: string;
  agentName: string;
  wallet: string | null;
  credentialId: string;
  verifiedRuns: number;
  receipts: number;
  checkedSeq: number;
  failedRuns: string[];
  createdAt: number;
  updatedAt: number;
}

interface PassportRow {
  account_id: string;
  handle: string;
  agent_name: string;
  wallet: string | null;
  credential_id: string;
  verified_runs: number;
  receipts: number;
  checked_seq: number;
  failed_runs: string;
  created_at: number;
  updated_at: number;
}

const passportOf = (r: PassportRow): PassportRecord => ({
  accountId: r.account_id,
  handle: r.handle,
  agentName: r.agent_name,
  wallet: r.wallet,
  credentialId: r.credential_id,
  verifiedRuns: r.verified_runs,
  receipts: r.receipts,
  checkedSeq: r.checked_seq,
  failedRuns: JSON.parse(r.failed_runs) as string[],
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface CredentialRecord {
  id: string;
  accountId: string;
  handle: string;
  credential: string;
  signature: string;
  signer: string;
  commitment: string;
  issuedAt: number;
  anchorRoot: string | null;
  anchorIndex: number | null;
}

interface CredentialRow {
  id: string;
  account_id: string;
  handle: string;
  credential: string;
  signature: string;
  signer: string;
  commitment: string;
  issued_at: number;
  anchor_root: string | null;
  anchor_index: number | null;
}

const credentialOf = (r: CredentialRow): CredentialRecord => ({
  id: r.id,
  accountId: r.account_id,
  handle: r.handle,
  credential: r.credential,
  signature: r.signature,
  signer: r.signer,
  commitment: r.commitment,
  issuedAt: r.issued_at,
  anchorRoot: r.anchor_root,
  anchorIndex: r.anchor_index,
});

export function passportOfAccount(ctx: Context, accountId: string): PassportRecord | null {
  const row = ctx.db.query<PassportRow, [string]>("SELECT * FROM passports WHERE account_id = ?").get(accountId);
  return row ? passportOf(row) : null;
}

export function passportByHandle(ctx: Context, handle: string): PassportRecord | null {
  const row = ctx.db.query<PassportRow, [string]>("SELECT * FROM passports WHERE handle = ?").get(handle);
  return row ? passportOf(row) : null;
}

/** Spec §4.1's order: verified runs, then receipts, both descending; the handle breaks ties so the order is stable. */
export function rankedPassports(ctx: Context, limit: number): PassportRecord[] {
  return ctx.db.query<PassportRow, [number]>("SELECT * FROM passports ORDER BY verified_runs DESC, receipts DESC, handle ASC LIMIT ?").all(limit).map(passportOf);
}

export function insertCredential(ctx: Context, c: Omit<CredentialRecord, "anchorRoot" | "anchorIndex">): void {
  ctx.db
    .query("INSERT INTO passport_credentials (id, account_id, handle, credential, signature, signer, commitment, issued_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    .run(c.id, c.accountId, c.handle, c.credential, c.signature, c.signer, c.commitment, c.issuedAt);
}

/** Creates the account's passport or points it at its new credential, with the figures it ranks by. */
export function savePassport(ctx: Context, p: PassportRecord): void {
  ctx.db
    .query(
      `INSERT INTO passports (account_id, handle, agent_name, wallet, credential_id, verified_runs, receipts, checked_seq, failed_runs, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET agent_name = excluded.agent_name, wallet = excluded.wallet, credential_id = excluded.credential_id,
         verified_runs = excluded.verified_runs, receipts = excluded.receipts, checked_seq = excluded.checked_seq, failed_runs = excluded.failed_runs,
         updated_at = excluded.updated_at`,
    )
    .run(p.accountId, p.handle, p.agentName, p.wallet, p.credentialId, p.verifiedRuns, p.receipts, p.checkedSeq, JSON.stringify(p.failedRuns), p.createdAt, p.updatedAt);
}

export function credentialById(ctx: Context, id: string): CredentialRecord | null {
  const row = ctx.db.query<CredentialRow, [string]>("SELECT * FROM passport_credentials WHERE id = ?").get(id);
  return row ? credentialOf(row) : null;
}

/** Credentials not yet under a root, oldest first: the next batch's leaves. */
export function unanchoredCredentials(ctx: Context, limit: number): { id: string; commitment: string }[] {
  return ctx.db.query<{ id: string; commitment: string }, [number]>("SELECT id, commitment FROM passport_credentials WHERE anchor_root IS NULL ORDER BY seq LIMIT ?").all(limit);
}

export function setCredentialAnchor(ctx: Context, id: string, root: string, index: number): void {
  ctx.db.query("UPDATE passport_credentials SET anchor_root = ?, anchor_index = ? WHERE id = ?").run(root, index, id);
}

/** The commitments under a root, in leaf order: what the root was computed over. */
export function commitmentsUnder(ctx: Context, root: string): string[] {
  return ctx.db
    .query<{ commitment: string }, [string]>("SELECT commitment FROM passport_credentials WHERE anchor_root = ? ORDER BY anchor_index")
    .all(root)
    .map((r) => r.commitment);
}
