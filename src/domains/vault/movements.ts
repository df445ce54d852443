/**
 * The record of every position movement (vault_transfers): issues from the issuer (kind issue,
 * no from_holder_id) and transfers between holders. GET /v1/vault/transfers lists both; each
 * carries the salt that opens its chain entry's amount_commitment.
 */
import { isoTime } from "../../core/clock.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { amountCommitment, appendEntry, newSalt } from "./chain.ts";
import { TRANSFERS_CAP } from "./limits.ts";

interface MovementRow {
  id: string;
  asset_id: string;
  account_id: string;
  kind: "issue" | "transfer";
  from_holder_id: string | null;
  to_holder_id: string;
  amount_micro_usd: number;
  amount_salt: string;
  memo: string | null;
  chain_seq: number;
  created_at: number;
}

const view = (r: MovementRow) => ({
  id: r.id,
  asset_id: r.asset_id,
  kind: r.kind,
  from_holder_id: r.from_holder_id,
  to_holder_id: r.to_holder_id,
  amount_micro_usd: r.amount_micro_usd,
  memo: r.memo,
  chain_seq: r.chain_seq,
  amount_commitment: amountCommitment(r.amount_micro_usd, r.amount_salt),
  amount_salt: r.amount_salt,
  created_at: isoTime(r.created_at),
});

export type TransferView = ReturnType<typeof view>;

/** Records a movement and its chain entry (inside the transaction that moved the positions). */
export function recordMovement(
  ctx: Context,
  m: { accountId: string; assetId: string; kind: "issue" | "transfer"; from: string | null; to: string; amount: number; memo: string | null },
): TransferView {
  const id = newId(m.kind === "issue" ? "viss" : "vtx");
  const salt = newSalt();
  const refs: Record<string, string | null> = m.kind === "issue" ? { transfer_id: id, to_holder_id: m.to } : { transfer_id: id, from_holder_id: m.from, to_holder_id: m.to };
  const { seq } = appendEntry(ctx, m.assetId, m.kind === "issue" ? "issued" : "transferred", refs, { amount: m.amount, salt });
  const row = ctx.db
    .query<MovementRow, (string | number | null)[]>(
      `INSERT INTO vault_transfers (id, asset_id, account_id, kind, from_holder_id, to_holder_id, amount_micro_usd, amount_salt, memo, chain_seq, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(id, m.assetId, m.accountId, m.kind, m.from, m.to, m.amount, salt, m.memo, seq, ctx.clock.now())!;
  return view(row);
}

/** Spec §8: at most 100, newest first; one asset's when `assetId` is given. */
export function listMovements(ctx: Context, accountId: string, assetId: string | null): TransferView[] {
  const rows = assetId
    ? ctx.db
        .query<MovementRow, [string, string, number]>("SELECT * FROM vault_transfers WHERE account_id = ? AND asset_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?")
        .all(accountId, assetId, TRANSFERS_CAP)
    : ctx.db.query<MovementRow, [string, number]>("SELECT * FROM vault_transfers WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?").all(accountId, TRANSFERS_CAP);
  return rows.map(view);
}
