/**
 * Each asset's append-only, hash-chained event log (docs/vault.md "The chain"). Every change to
 * an asset appends one entry in the transaction that makes the change, so the log and the state
 * cannot disagree. An entry is public (GET /v1/vault/chain/:id): it names the fact and the ids
 * involved, never a name, an email, a text or an amount. An amount is stated as a commitment,
 * sha256(canonical {amount_micro_usd, salt}), whose salt only the owner's records show.
 *
 *   canonical = canonical JSON of {entry, prev_hash}
 *   hash      = sha256(canonical), lowercase hex; the first entry's prev_hash is 64 zeros
 */
import { randomBytes } from "node:crypto";
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import { canonicalJson } from "../../core/canonical-json.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";

export const GENESIS = "0".repeat(64);

export const HASH_ALG =
  "canonical = canonical JSON (keys sorted by code point, integers only, no whitespace) of {entry, prev_hash}; hash = SHA-256(canonical as UTF-8), lowercase hex; " +
  "the first entry's prev_hash is 64 zeros and each later entry's prev_hash is the hash before it";

export const COMMITMENT_ALG = "amount_commitment = SHA-256(canonical JSON of {amount_micro_usd, salt}), lowercase hex; the salt (32 random bytes, hex) is in the owner's record";

export type EntryType =
  | "asset_created"
  | "holder_added"
  | "issued"
  | "transferred"
  | "distributed"
  | "attester_added"
  | "attestation_recorded"
  | "document_added"
  | "grant_created"
  | "grant_revoked"
  | "claim_created"
  | "claim_bound";

export interface ChainEntry {
  v: 1;
  asset_id: string;
  seq: number;
  type: EntryType;
  at: string;
  /** The records the change touched, by id (holder_id, transfer_id, …). */
  refs: Record<string, string | null>;
  amount_commitment: string | null;
}

export interface ChainRow {
  asset_id: string;
  seq: number;
  type: string;
  entry: string;
  prev_hash: string;
  hash: string;
  created_at: number;
  anchor_root: string | null;
  anchor_index: number | null;
}

export const newSalt = (): string => randomBytes(32).toString("hex");

export const amountCommitment = (amount: number, salt: string): string => sha256Hex(canonicalJson({ amount_micro_usd: amount, salt }));

export const canonicalLine = (entry: ChainEntry, prevHash: string): string => canonicalJson({ entry: { ...entry }, prev_hash: prevHash });

/**
 * Appends one entry to the asset's chain and moves its head. Must run inside the transaction of
 * the change it records (the head is read and written there, so two writers never both extend
 * the same head).
 */
export function appendEntry(ctx: Context, assetId: string, type: EntryType, refs: ChainEntry["refs"], amount?: { amount: number; salt: string }): { seq: number; hash: string } {
  if (!ctx.tx.active) throw new Error(`vault chain entry ${type} appended outside a transaction`);
  const head = ctx.db.query<{ chain_seq: number; chain_head: string }, [string]>("SELECT chain_seq, chain_head FROM vault_assets WHERE id = ?").get(assetId);
  if (!head) throw new Error(`vault asset ${assetId} has no chain`);
  const now = ctx.clock.now();
  const entry: ChainEntry = {
    v: 1,
    asset_id: assetId,
    seq: head.chain_seq + 1,
    type,
    at: isoTime(now),
    refs,
    amount_commitment: amount ? amountCommitment(amount.amount, amount.salt) : null,
  };
  const hash = sha256Hex(canonicalLine(entry, head.chain_head));
  ctx.db
    .query("INSERT INTO vault_chain (asset_id, seq, type, entry, prev_hash, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .run(assetId, entry.seq, type, canonicalJson({ ...entry }), head.chain_head, hash, now);
  ctx.db.query("UPDATE vault_assets SET chain_seq = ?, chain_head = ? WHERE id = ?").run(entry.seq, hash, assetId);
  return { seq: entry.seq, hash };
}

/** Entries below `beforeSeq` (all when null), newest first, at most `limit`. */
export function chainPage(ctx: Context, assetId: string, beforeSeq: number | null, limit: number): ChainRow[] {
  return ctx.db
    .query<ChainRow, [string, number, number]>("SELECT * FROM vault_chain WHERE asset_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?")
    .all(assetId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit);
}

export function chainEntry(ctx: Context, assetId: string, seq: number): ChainRow | null {
  return ctx.db.query<ChainRow, [string, number]>("SELECT * FROM vault_chain WHERE asset_id = ? AND seq = ?").get(assetId, seq);
}

/** The newest entry of the asset that is under a Merkle root, or null. */
export function newestAnchoredEntry(ctx: Context, assetId: string): ChainRow | null {
  return ctx.db.query<ChainRow, [string]>("SELECT * FROM vault_chain WHERE asset_id = ? AND anchor_root IS NOT NULL ORDER BY seq DESC LIMIT 1").get(assetId);
}

export function pendingEntries(ctx: Context, assetId: string): number {
  return ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM vault_chain WHERE asset_id = ? AND anchor_root IS NULL").get(assetId)!.n;
}

/** For the anchoring pass (anchoring.ts): entries of every asset not yet under a root, in append order. */
export function unanchoredEntries(ctx: Context, limit: number): { asset_id: string; seq: number; hash: string }[] {
  return ctx.db
    .query<{ asset_id: string; seq: number; hash: string }, [number]>("SELECT asset_id, seq, hash FROM vault_chain WHERE anchor_root IS NULL ORDER BY created_at, rowid LIMIT ?")
    .all(limit);
}

export function setEntryAnchor(ctx: Context, assetId: string, seq: number, root: string, index: number): void {
  ctx.db.query("UPDATE vault_chain SET anchor_root = ?, anchor_index = ? WHERE asset_id = ? AND seq = ?").run(root, index, assetId, seq);
}

export function hashesUnder(ctx: Context, root: string): string[] {
  return ctx.db
    .query<{ hash: string }, [string]>("SELECT hash FROM vault_chain WHERE anchor_root = ? ORDER BY anchor_index")
    .all(root)
    .map((r) => r.hash);
}

/**
 * GET /v1/vault/chain/:id: a page of the asset's entries, newest first, each with the canonical
 * line its hash was computed over; next_before_seq pages back (null at the first entry).
 */
export function publicChain(ctx: Context, assetId: string, beforeSeq: number | null, limit: number) {
  const asset = ctx.db.query<{ id: string; chain_seq: number; chain_head: string }, [string]>("SELECT id, chain_seq, chain_head FROM vault_assets WHERE id = ?").get(assetId);
  if (!asset) throw notFound("vault asset");
  const rows = chainPage(ctx, asset.id, beforeSeq, limit);
  const last = rows.at(-1);
  return {
    asset_id: asset.id,
    head: { seq: asset.chain_seq, hash: asset.chain_head },
    entries: rows.map((r) => {
      const entry = JSON.parse(r.entry) as ChainEntry;
      return { seq: r.seq, type: r.type, entry, prev_hash: r.prev_hash, hash: r.hash, canonical: canonicalLine(entry, r.prev_hash) };
    }),
    next_before_seq: last && last.seq > 1 && rows.length === limit ? last.seq : null,
    hash_alg: HASH_ALG,
    commitment_alg: COMMITMENT_ALG,
  };
}
