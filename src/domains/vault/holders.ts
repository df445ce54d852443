/**
 * Holders of an asset and their positions (integer micro-USD). A holder is a registry entry
 * named by the issuer (name, optional email unique within the asset); its wallet is only ever
 * set by the holder proving it through a claim (claims.ts). Positions change only by an issue
 * (here: the issuer adds to a holder, within the asset's unissued size) and by a transfer
 * between holders (transfers.ts).
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { type AssetRow, ownAsset } from "./assets.ts";
import { appendEntry } from "./chain.ts";
import { recordMovement, type TransferView } from "./movements.ts";
import { notify } from "./events.ts";

export interface HolderRow {
  id: string;
  asset_id: string;
  account_id: string;
  name: string;
  email: string | null;
  wallet: string | null;
  position_micro_usd: number;
  distributed_micro_usd: number;
  claimed_at: number | null;
  created_at: number;
  updated_at: number;
}

export const holderView = (h: HolderRow) => ({
  id: h.id,
  asset_id: h.asset_id,
  name: h.name,
  email: h.email,
  wallet: h.wallet && toChecksumAddress(h.wallet),
  position_micro_usd: h.position_micro_usd,
  distributed_micro_usd: h.distributed_micro_usd,
  claimed_at: h.claimed_at === null ? null : isoTime(h.claimed_at),
  created_at: isoTime(h.created_at),
  updated_at: isoTime(h.updated_at),
});

export type HolderView = ReturnType<typeof holderView>;

/** The holder of this asset, or the 404 an unknown id (or another asset's holder) gets. */
export function holderOf(ctx: Context, asset: AssetRow, holderId: string): HolderRow {
  const row = ctx.db.query<HolderRow, [string, string]>("SELECT * FROM vault_holders WHERE id = ? AND asset_id = ?").get(holderId, asset.id);
  if (!row) throw notFound("vault holder");
  return row;
}

export function holderRow(ctx: Context, holderId: string): HolderRow {
  return ctx.db.query<HolderRow, [string]>("SELECT * FROM vault_holders WHERE id = ?").get(holderId)!;
}

/** Adds a holder, and issues `amount` to it in the same transaction when one is given. */
export function addHolder(
  ctx: Context,
  accountId: string,
  assetId: string,
  input: { name: string; email: string | null; amount: number | null; memo: string | null },
): { holder: HolderView; issue: TransferView | null } {
  const email = input.email?.toLowerCase() ?? null;
  return ctx.tx.run(() => {
    const asset = ownAsset(ctx, accountId, assetId);
    if (email && ctx.db.query("SELECT 1 FROM vault_holders WHERE asset_id = ? AND email = ?").get(asset.id, email)) {
      throw new ApiError(409, "holder_exists", "email: this asset already has a holder with this email", { param: "email" });
    }
    const id = newId("vh");
    const now = ctx.clock.now();
    ctx.db
      .query("INSERT INTO vault_holders (id, asset_id, account_id, name, email, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(id, asset.id, accountId, input.name, email, now, now);
    appendEntry(ctx, asset.id, "holder_added", { holder_id: id });
    const issued = input.amount ? issueTo(ctx, asset, holderRow(ctx, id), input.amount, input.memo) : null;
    return { holder: holderView(holderRow(ctx, id)), issue: issued };
  });
}

/**
 * The asset's holders (spec §8: not capped), oldest first, with the asset's figures:
 * total_micro_usd (its declared size), issued_micro_usd (issued to holders so far) and
 * pending_claims_micro_usd (positions of holders who have not yet bound a wallet).
 */
export function listHolders(ctx: Context, accountId: string, assetId: string) {
  const asset = ownAsset(ctx, accountId, assetId);
  const rows = ctx.db.query<HolderRow, [string]>("SELECT * FROM vault_holders WHERE asset_id = ? ORDER BY created_at, rowid").all(asset.id);
  const pending = rows.filter((h) => h.wallet === null).reduce((sum, h) => sum + h.position_micro_usd, 0);
  return {
    holders: rows.map(holderView),
    asset_id: asset.id,
    total_micro_usd: asset.total_micro_usd,
    pending_claims_micro_usd: pending,
    issued_micro_usd: asset.issued_micro_usd,
  };
}

/**
 * Issues `amount` to a holder: the asset's issued_micro_usd grows by it, never past its
 * total_micro_usd (checked by the UPDATE itself, inside the transaction: 409 exceeds_supply).
 */
export function issue(ctx: Context, accountId: string, assetId: string, holderId: string, amount: number, memo: string | null): TransferView {
  return ctx.tx.run(() => {
    const asset = ownAsset(ctx, accountId, assetId);
    return issueTo(ctx, asset, holderOf(ctx, asset, holderId), amount, memo);
  });
}

function issueTo(ctx: Context, asset: AssetRow, holder: HolderRow, amount: number, memo: string | null): TransferView {
  const grown = ctx.db.query("UPDATE vault_assets SET issued_micro_usd = issued_micro_usd + ?1 WHERE id = ?2 AND issued_micro_usd + ?1 <= total_micro_usd").run(amount, asset.id).changes;
  if (!grown) {
    const left = ctx.db.query<{ n: number }, [string]>("SELECT total_micro_usd - issued_micro_usd AS n FROM vault_assets WHERE id = ?").get(asset.id)!.n;
    throw new ApiError(409, "exceeds_supply", `amount_micro_usd: the asset has ${left} micro-USD left to issue (total_micro_usd less issued_micro_usd)`, { param: "amount_micro_usd", unissued_micro_usd: left });
  }
  ctx.db.query("UPDATE vault_holders SET position_micro_usd = position_micro_usd + ?, updated_at = ? WHERE id = ?").run(amount, ctx.clock.now(), holder.id);
  const movement = recordMovement(ctx, { accountId: asset.account_id, assetId: asset.id, kind: "issue", from: null, to: holder.id, amount, memo });
  notify(ctx, "vault_transfer_received", asset.account_id, [holder.wallet], movementEvent(movement));
  return movement;
}

/** What a transfer event says: ids and the chain entry, never the amount. */
export const movementEvent = (m: TransferView) => ({
  asset_id: m.asset_id,
  transfer_id: m.id,
  kind: m.kind,
  from_holder_id: m.from_holder_id,
  to_holder_id: m.to_holder_id,
  chain_seq: m.chain_seq,
  at: m.created_at,
});
