/** The support program's rows: support_nonces and support_claims. The only file that names them in SQL. */
import type { Context } from "../../context.ts";

export interface NonceRow {
  nonce: string;
  message: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface ClaimRow {
  id: string;
  evm_address: string;
  ed25519_public_key: string;
  nonce: string;
  chain: string;
  chain_id: number;
  tx_hash: string;
  block_number: number;
  status: "registered";
  created_at: number;
}

const CLAIM_COLUMNS = "id, evm_address, ed25519_public_key, nonce, chain, chain_id, tx_hash, block_number, status, created_at";

/** Adds a nonce and forgets the unused ones that have expired, so the table stays as small as the rate limit allows. */
export function insertNonce(ctx: Context, row: Omit<NonceRow, "used_at">): void {
  ctx.db.query("DELETE FROM support_nonces WHERE expires_at < ? AND used_at IS NULL").run(row.created_at);
  ctx.db.query("INSERT INTO support_nonces (nonce, message, created_at, expires_at, used_at) VALUES (?, ?, ?, ?, NULL)").run(row.nonce, row.message, row.created_at, row.expires_at);
}

export const nonceOf = (ctx: Context, nonce: string): NonceRow | null =>
  ctx.db.query<NonceRow, [string]>("SELECT nonce, message, created_at, expires_at, used_at FROM support_nonces WHERE nonce = ?").get(nonce);

/** Marks the nonce used; false when another claim used it first. */
export const useNonce = (ctx: Context, nonce: string, at: number): boolean => ctx.db.query("UPDATE support_nonces SET used_at = ? WHERE nonce = ? AND used_at IS NULL").run(at, nonce).changes === 1;

export const claimByAddress = (ctx: Context, address: string): ClaimRow | null =>
  ctx.db.query<ClaimRow, [string]>(`SELECT ${CLAIM_COLUMNS} FROM support_claims WHERE evm_address = ?`).get(address);

export const claimByKey = (ctx: Context, key: string): ClaimRow | null => ctx.db.query<ClaimRow, [string]>(`SELECT ${CLAIM_COLUMNS} FROM support_claims WHERE ed25519_public_key = ?`).get(key);

export const claimByTransaction = (ctx: Context, chainId: number, txHash: string): ClaimRow | null =>
  ctx.db.query<ClaimRow, [number, string]>(`SELECT ${CLAIM_COLUMNS} FROM support_claims WHERE chain_id = ? AND tx_hash = ?`).get(chainId, txHash);

export function insertClaim(ctx: Context, row: ClaimRow): void {
  ctx.db
    .query(`INSERT INTO support_claims (${CLAIM_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(row.id, row.evm_address, row.ed25519_public_key, row.nonce, row.chain, row.chain_id, row.tx_hash, row.block_number, row.status, row.created_at);
}
