/**
 * Distributions: the issuer pays holders an amount pro rata to their positions at that moment
 * (a dividend, a coupon). svc records who is owed what; the payment itself happens outside svc.
 * Positions do not change.
 *
 *   share(holder) = floor(amount × position / sum of positions)   (integer arithmetic, BigInt)
 *
 * Flooring never pays out more than the amount; what it leaves (remainder_micro_usd, less than
 * one micro-USD per holder) stays with the issuer, is stated on the record, and is not carried
 * to the next distribution. Holders with a zero position get no share.
 */
import { isoTime } from "../../core/clock.ts";
import { ApiError, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { ownAsset } from "./assets.ts";
import { amountCommitment, appendEntry, newSalt } from "./chain.ts";
import { notify } from "./events.ts";
import { DISTRIBUTIONS_CAP } from "./limits.ts";

interface DistributionRow {
  id: string;
  asset_id: string;
  account_id: string;
  amount_micro_usd: number;
  distributed_micro_usd: number;
  remainder_micro_usd: number;
  basis_micro_usd: number;
  holders: number;
  amount_salt: string;
  memo: string | null;
  chain_seq: number;
  created_at: number;
}

const view = (d: DistributionRow) => ({
  id: d.id,
  asset_id: d.asset_id,
  amount_micro_usd: d.amount_micro_usd,
  distributed_micro_usd: d.distributed_micro_usd,
  remainder_micro_usd: d.remainder_micro_usd,
  basis_micro_usd: d.basis_micro_usd,
  holders: d.holders,
  memo: d.memo,
  chain_seq: d.chain_seq,
  amount_commitment: amountCommitment(d.amount_micro_usd, d.amount_salt),
  amount_salt: d.amount_salt,
  created_at: isoTime(d.created_at),
});

export type DistributionView = ReturnType<typeof view>;

interface Share {
  holder_id: string;
  position_micro_usd: number;
  amount_micro_usd: number;
}

/** Pro rata shares with floor; positions are positive and sum to `basis`. */
export function proRata(amount: number, positions: { id: string; position: number }[]): Share[] {
  const basis = positions.reduce((s, p) => s + BigInt(p.position), 0n);
  return positions.map((p) => ({ holder_id: p.id, position_micro_usd: p.position, amount_micro_usd: Number((BigInt(amount) * BigInt(p.position)) / basis) }));
}

export function distribute(ctx: Context, accountId: string, input: { assetId: string; amount: number; memo: string | null }): DistributionView & { shares: Share[] } {
  return ctx.tx.run(() => {
    const asset = ownAsset(ctx, accountId, input.assetId);
    const held = ctx.db
      .query<{ id: string; position: number; wallet: string | null }, [string]>(
        "SELECT id, position_micro_usd AS position, wallet FROM vault_holders WHERE asset_id = ? AND position_micro_usd > 0 ORDER BY created_at, rowid",
      )
      .all(asset.id);
    if (!held.length) throw new ApiError(409, "no_positions", "asset_id: no holder of this asset has a position to distribute to", { param: "asset_id" });
    const shares = proRata(input.amount, held);
    const distributed = shares.reduce((s, x) => s + x.amount_micro_usd, 0);
    const basis = held.reduce((s, h) => s + h.position, 0);
    const id = newId("vdist");
    const salt = newSalt();
    const { seq } = appendEntry(ctx, asset.id, "distributed", { distribution_id: id }, { amount: input.amount, salt });
    const row = ctx.db
      .query<DistributionRow, (string | number | null)[]>(
        `INSERT INTO vault_distributions (id, asset_id, account_id, amount_micro_usd, distributed_micro_usd, remainder_micro_usd, basis_micro_usd, holders, amount_salt, memo, chain_seq, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(id, asset.id, accountId, input.amount, distributed, input.amount - distributed, basis, held.length, salt, input.memo, seq, ctx.clock.now())!;
    const line = ctx.db.prepare("INSERT INTO vault_distribution_shares (distribution_id, holder_id, position_micro_usd, amount_micro_usd) VALUES (?, ?, ?, ?)");
    const credit = ctx.db.prepare("UPDATE vault_holders SET distributed_micro_usd = distributed_micro_usd + ? WHERE id = ?");
    for (const s of shares) {
      line.run(id, s.holder_id, s.position_micro_usd, s.amount_micro_usd);
      if (s.amount_micro_usd) credit.run(s.amount_micro_usd, s.holder_id);
    }
    notify(ctx, "vault_distribution", accountId, held.map((h) => h.wallet), { asset_id: asset.id, distribution_id: id, holders: held.length, chain_seq: seq, at: isoTime(row.created_at) });
    return { ...view(row), shares };
  });
}

/** Spec §8: at most 200, newest first; `assetId` narrows to one of the account's assets. */
export function listDistributions(ctx: Context, accountId: string, assetId: string | null): DistributionView[] {
  if (assetId) ownAsset(ctx, accountId, assetId);
  const rows = assetId
    ? ctx.db
        .query<DistributionRow, [string, string, number]>("SELECT * FROM vault_distributions WHERE account_id = ? AND asset_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?")
        .all(accountId, assetId, DISTRIBUTIONS_CAP)
    : ctx.db.query<DistributionRow, [string, number]>("SELECT * FROM vault_distributions WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?").all(accountId, DISTRIBUTIONS_CAP);
  return rows.map(view);
}

/** One distribution with its shares (holder order). */
export function getDistribution(ctx: Context, accountId: string, id: string): DistributionView & { shares: Share[] } {
  const row = ctx.db.query<DistributionRow, [string]>("SELECT * FROM vault_distributions WHERE id = ?").get(id);
  if (!row || row.account_id !== accountId) throw notFound("vault distribution");
  const shares = ctx.db
    .query<Share, [string]>("SELECT holder_id, position_micro_usd, amount_micro_usd FROM vault_distribution_shares WHERE distribution_id = ? ORDER BY rowid")
    .all(id);
  return { ...view(row), shares };
}
