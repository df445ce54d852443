/** nav_records and nav_public_assets (migrations/0042_nav.sql): the only file that names them in SQL. */
import type { Context } from "../../context.ts";

export interface NavRow {
  id: string;
  account_id: string;
  key_id: string | null;
  asset_id: string;
  seq: number;
  status: string;
  statement: string;
  signature: string;
  signer: string;
  evidence: string;
  book_sealed: string;
  created_at: number;
  published_at: number | null;
}

const COLUMNS = "id, account_id, key_id, asset_id, seq, status, statement, signature, signer, evidence, book_sealed, created_at, published_at";

export function insertRecord(ctx: Context, row: Omit<NavRow, "published_at">): void {
  ctx.db
    .query(`INSERT INTO nav_records (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`)
    .run(row.id, row.account_id, row.key_id, row.asset_id, row.seq, row.status, row.statement, row.signature, row.signer, row.evidence, row.book_sealed, row.created_at);
}

/** The next version number of the account's asset (call inside the transaction that inserts it). */
export const nextSeq = (ctx: Context, accountId: string, assetId: string): number =>
  ctx.db.query<{ n: number }, [string, string]>("SELECT coalesce(max(seq), 0) + 1 AS n FROM nav_records WHERE account_id = ? AND asset_id = ?").get(accountId, assetId)!.n;

export const latestOf = (ctx: Context, accountId: string, assetId: string): NavRow | null =>
  ctx.db.query<NavRow, [string, string]>(`SELECT ${COLUMNS} FROM nav_records WHERE account_id = ? AND asset_id = ? ORDER BY seq DESC LIMIT 1`).get(accountId, assetId);

/** The account's record; null for an unknown id and another account's alike. */
export const recordOf = (ctx: Context, accountId: string, id: string): NavRow | null =>
  ctx.db.query<NavRow, [string, string]>(`SELECT ${COLUMNS} FROM nav_records WHERE id = ? AND account_id = ?`).get(id, accountId);

export const historyOf = (ctx: Context, accountId: string, assetId: string, limit: number, publishedOnly: boolean): NavRow[] =>
  ctx.db
    .query<NavRow, [string, string, number]>(
      `SELECT ${COLUMNS} FROM nav_records WHERE account_id = ? AND asset_id = ? ${publishedOnly ? "AND published_at IS NOT NULL" : ""} ORDER BY seq DESC LIMIT ?`,
    )
    .all(accountId, assetId, limit);

/** Publishes a version; an already published one keeps its first published_at. */
export const markPublished = (ctx: Context, id: string, at: number): void => {
  ctx.db.query("UPDATE nav_records SET published_at = ? WHERE id = ? AND published_at IS NULL").run(at, id);
};

export const publicOwnerOf = (ctx: Context, assetId: string): string | null =>
  ctx.db.query<{ account_id: string }, [string]>("SELECT account_id FROM nav_public_assets WHERE asset_id = ?").get(assetId)?.account_id ?? null;

export const claimPublicAsset = (ctx: Context, assetId: string, accountId: string, at: number): void => {
  ctx.db.query("INSERT OR IGNORE INTO nav_public_assets (asset_id, account_id, claimed_at) VALUES (?, ?, ?)").run(assetId, accountId, at);
};
