/**
 * The payment-request rows: pay_requests (the signed request) and pay_settlements (the transfer
 * that settled one, with its signed receipt). The only file that names them in SQL.
 */
import type { Context } from "../../context.ts";

export interface RequestRow {
  id: string;
  account_id: string;
  key_id: string;
  chain: string;
  chain_id: number;
  token: string;
  payee: string;
  decimals: number;
  amount_micro_usd: number;
  amount_units: string;
  after_block: number;
  statement: string;
  signature: string;
  signer: string;
  expires_at: number;
  created_at: number;
  settled_at: number | null;
}

export interface SettlementRow {
  chain_id: number;
  tx_hash: string;
  log_position: number;
  log_index: number;
  request_id: string;
  from_address: string;
  amount_units: string;
  block_number: number;
  block_hash: string;
  confirmations: number;
  required_confirmations: number;
  statement: string;
  signature: string;
  signer: string;
  settled_at: number;
}

const REQUEST_COLUMNS = "id, account_id, key_id, chain, chain_id, token, payee, decimals, amount_micro_usd, amount_units, after_block, statement, signature, signer, expires_at, created_at, settled_at";

export function insertRequest(ctx: Context, row: Omit<RequestRow, "settled_at">): void {
  ctx.db
    .query(`INSERT INTO pay_requests (${REQUEST_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`)
    .run(row.id, row.account_id, row.key_id, row.chain, row.chain_id, row.token, row.payee, row.decimals, row.amount_micro_usd, row.amount_units, row.after_block, row.statement, row.signature, row.signer, row.expires_at, row.created_at);
}

/** The account's request; null for an unknown id and for another account's alike. */
export function requestOf(ctx: Context, accountId: string, id: string): RequestRow | null {
  return ctx.db.query<RequestRow, [string, string]>(`SELECT ${REQUEST_COLUMNS} FROM pay_requests WHERE id = ? AND account_id = ?`).get(id, accountId);
}

/** Requests of the account neither settled nor expired at `now`. */
export function openRequestCount(ctx: Context, accountId: string, now: number): number {
  return ctx.db.query<{ n: number }, [string, number]>("SELECT count(*) AS n FROM pay_requests WHERE account_id = ? AND settled_at IS NULL AND expires_at >= ?").get(accountId, now)!.n;
}

export function settlementOf(ctx: Context, requestId: string): SettlementRow | null {
  return ctx.db.query<SettlementRow, [string]>("SELECT * FROM pay_settlements WHERE request_id = ?").get(requestId);
}

/** Which request a transfer already settled, if any. */
export function requestSettledBy(ctx: Context, chainId: number, txHash: string, logPosition: number): string | null {
  return ctx.db.query<{ request_id: string }, [number, string, number]>("SELECT request_id FROM pay_settlements WHERE chain_id = ? AND tx_hash = ? AND log_position = ?").get(chainId, txHash, logPosition)?.request_id ?? null;
}

/** Records the settlement and marks its request settled. The caller holds the write transaction and has checked both are free. */
export function insertSettlement(ctx: Context, row: SettlementRow): void {
  ctx.db
    .query(
      `INSERT INTO pay_settlements (chain_id, tx_hash, log_position, log_index, request_id, from_address, amount_units, block_number, block_hash, confirmations,
                                    required_confirmations, statement, signature, signer, settled_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.chain_id,
      row.tx_hash,
      row.log_position,
      row.log_index,
      row.request_id,
      row.from_address,
      row.amount_units,
      row.block_number,
      row.block_hash,
      row.confirmations,
      row.required_confirmations,
      row.statement,
      row.signature,
      row.signer,
      row.settled_at,
    );
  ctx.db.query("UPDATE pay_requests SET settled_at = ? WHERE id = ?").run(row.settled_at, row.request_id);
}
