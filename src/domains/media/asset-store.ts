/**
 * Media assets: generated videos and images served by URL, each a file in <data_dir>/media/
 * sealed with the master key (bound to its asset id, so a file copied under another id does
 * not open), with a row in media_assets that outlives the file. An asset has an expiry; the
 * sweep job destroys expired files, DELETE destroys one at once. "Destroyed" means the file is
 * gone and destroyed_at set: what was delivered stays provable by its sha256 and receipt.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Context } from "../../context.ts";
import { newId } from "../../core/ids.ts";
import { sha256Hex } from "../../core/secrets.ts";

export interface AssetRow {
  id: string;
  account_id: string;
  mime: string;
  bytes: number;
  sha256: string;
  token_sha256: string | null;
  created_at: number;
  expires_at: number;
  destroyed_at: number | null;
}

const COLUMNS = "id, account_id, mime, bytes, sha256, token_sha256, created_at, expires_at, destroyed_at";
const aad = (id: string) => `media:asset:${id}`;
const fileOf = (ctx: Context, id: string) => join(ctx.paths.media, `${id}.sealed`);

export interface StoredAsset {
  row: AssetRow;
  /** The public token (response_format url), returned once; null when the asset is owner-only. */
  token: string | null;
}

/** Seals and stores bytes; the file is written before the row, so a row always has its file until destroyed. */
export function storeAsset(ctx: Context, input: { accountId: string; mime: string; bytes: Uint8Array; ttlMs: number; publicToken?: boolean }): StoredAsset {
  const id = newId("asset");
  const now = ctx.clock.now();
  mkdirSync(ctx.paths.media, { recursive: true, mode: 0o700 });
  const path = fileOf(ctx, id);
  writeFileSync(`${path}.tmp`, ctx.sealer.seal(input.bytes, aad(id)), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
  const token = input.publicToken ? randomBytes(24).toString("base64url") : null;
  const row: AssetRow = { id, account_id: input.accountId, mime: input.mime, bytes: input.bytes.byteLength, sha256: sha256Hex(input.bytes), token_sha256: token ? sha256Hex(token) : null, created_at: now, expires_at: now + input.ttlMs, destroyed_at: null };
  ctx.db.query(`INSERT INTO media_assets (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(row.id, row.account_id, row.mime, row.bytes, row.sha256, row.token_sha256, row.created_at, row.expires_at, row.destroyed_at);
  return { row, token };
}

export function assetRow(ctx: Context, id: string): AssetRow | null {
  return ctx.db.query<AssetRow, [string]>(`SELECT ${COLUMNS} FROM media_assets WHERE id = ?`).get(id);
}

/** Whether the asset's content can still be served (not destroyed, not past its expiry). */
export const assetAvailable = (ctx: Context, row: AssetRow | null): row is AssetRow => row !== null && row.destroyed_at === null && row.expires_at > ctx.clock.now();

/** The asset's bytes, or null when it is no longer available. */
export function readAsset(ctx: Context, row: AssetRow): Uint8Array | null {
  if (!assetAvailable(ctx, row)) return null;
  const path = fileOf(ctx, row.id);
  if (!existsSync(path)) return null;
  return new Uint8Array(ctx.sealer.open(readFileSync(path, "utf8"), aad(row.id)));
}

/** The live asset a public URL token names, or null (unknown, expired or destroyed: the same answer). */
export function assetByToken(ctx: Context, token: string): AssetRow | null {
  const row = ctx.db.query<AssetRow, [string]>(`SELECT ${COLUMNS} FROM media_assets WHERE token_sha256 = ?`).get(sha256Hex(token));
  return assetAvailable(ctx, row) ? row : null;
}

/** Destroys the content (idempotent); the row stays with destroyed_at set. */
export function destroyAsset(ctx: Context, id: string): void {
  rmSync(fileOf(ctx, id), { force: true });
  ctx.db.query("UPDATE media_assets SET destroyed_at = ? WHERE id = ? AND destroyed_at IS NULL").run(ctx.clock.now(), id);
}

/** The expiry sweep: destroys up to `limit` expired assets; returns how many. */
export function sweepExpiredAssets(ctx: Context, limit = 200): number {
  const due = ctx.db.query<{ id: string }, [number, number]>("SELECT id FROM media_assets WHERE destroyed_at IS NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?").all(ctx.clock.now(), limit);
  for (const { id } of due) destroyAsset(ctx, id);
  return due.length;
}
