/**
 * Vault assets: an account's registry entries for off-chain assets (a fund, a property, a
 * note). An asset declares its size (total_micro_usd); issuing to holders draws on it, so
 * issued_micro_usd never exceeds it. Another account's asset answers 404 like an unknown one.
 */
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { appendEntry, GENESIS } from "./chain.ts";

export interface AssetRow {
  id: string;
  account_id: string;
  name: string;
  symbol: string | null;
  description: string | null;
  total_micro_usd: number;
  issued_micro_usd: number;
  chain_seq: number;
  chain_head: string;
  created_at: number;
}

export interface AssetInput {
  name: string;
  symbol: string | null;
  description: string | null;
  total: number;
}

export function assetView(ctx: Context, a: AssetRow) {
  const holders = ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM vault_holders WHERE asset_id = ?").get(a.id)!.n;
  return {
    id: a.id,
    name: a.name,
    symbol: a.symbol,
    description: a.description,
    total_micro_usd: a.total_micro_usd,
    issued_micro_usd: a.issued_micro_usd,
    unissued_micro_usd: a.total_micro_usd - a.issued_micro_usd,
    holders,
    chain_head: { seq: a.chain_seq, hash: a.chain_head },
    created_at: isoTime(a.created_at),
  };
}

export type AssetView = ReturnType<typeof assetView>;

export function createAsset(ctx: Context, accountId: string, input: AssetInput): AssetView {
  const id = newId("va");
  return ctx.tx.run(() => {
    ctx.db
      .query("INSERT INTO vault_assets (id, account_id, name, symbol, description, total_micro_usd, chain_head, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(id, accountId, input.name, input.symbol, input.description, input.total, GENESIS, ctx.clock.now());
    appendEntry(ctx, id, "asset_created", {});
    return assetView(ctx, ownAsset(ctx, accountId, id));
  });
}

/** Spec §8: vault assets are not capped; oldest first, so a registry reads in the order it was built. */
export function listAssets(ctx: Context, accountId: string): AssetView[] {
  return ctx.db
    .query<AssetRow, [string]>("SELECT * FROM vault_assets WHERE account_id = ? ORDER BY created_at, rowid")
    .all(accountId)
    .map((a) => assetView(ctx, a));
}

export const getAsset = (ctx: Context, accountId: string, id: string): AssetView => assetView(ctx, ownAsset(ctx, accountId, id));

/** The account's asset, or the 404 an unknown id gets. */
export function ownAsset(ctx: Context, accountId: string, id: string): AssetRow {
  const row = findAsset(ctx, id);
  if (!row || row.account_id !== accountId) throw notFound("vault asset");
  return row;
}

/** Any account's asset by id (the public routes: the id itself is the capability). */
export function findAsset(ctx: Context, id: string): AssetRow | null {
  return ctx.db.query<AssetRow, [string]>("SELECT * FROM vault_assets WHERE id = ?").get(id);
}
