/**
 * A treasury transfer spent on something other than credit (migrations/0050_treasury_spends.sql):
 * it is then never a deposit, and a deposit is never spent this way. Both sides check the other
 * inside their own write transaction, and SQLite serialises those, so a transfer is money once.
 */
import type { Context } from "../../context.ts";

export interface TreasurySpend {
  chainId: number;
  txHash: string;
  /** The transfer's position in its transaction's receipt (survives a reorg, unlike log_index). */
  position: number;
  /** What it paid for, e.g. "launch_check", and that thing's id. */
  purpose: string;
  ref: string;
}

/** Marks the transfer spent; false when it already paid for something or became a deposit. Call inside the write transaction that records what it pays for. */
export function spendTreasuryTransfer(ctx: Context, s: TreasurySpend): boolean {
  const deposited = ctx.db
    .query<{ n: number }, [number, string, number]>("SELECT count(*) AS n FROM deposits WHERE chain_id = ? AND tx_hash = ? AND tx_log_position = ?")
    .get(s.chainId, s.txHash, s.position)!.n;
  if (deposited) return false;
  return (
    ctx.db
      .query("INSERT OR IGNORE INTO treasury_spends (chain_id, tx_hash, log_position, purpose, ref, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(s.chainId, s.txHash, s.position, s.purpose, s.ref, ctx.clock.now()).changes === 1
  );
}

/** What the transfer was already spent on, or null. */
export const treasurySpendOf = (ctx: Context, chainId: number, txHash: string, position: number): { purpose: string; ref: string } | null =>
  ctx.db.query<{ purpose: string; ref: string }, [number, string, number]>("SELECT purpose, ref FROM treasury_spends WHERE chain_id = ? AND tx_hash = ? AND log_position = ?").get(chainId, txHash, position);
