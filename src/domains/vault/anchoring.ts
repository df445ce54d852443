/**
 * Anchoring the chains through the anchors area's batch mechanism (anchors/batches.ts): a
 * recurring pass puts every asset's entries appended since the last pass under one Merkle root
 * (in append order) and anchors it — the same roots and anchors as receipt batches, sealed calls
 * and passports, shown at GET /v1/anchors/:root. A leaf is an entry's hash (64 lowercase hex
 * characters); since each hash covers its prev_hash, an anchored entry fixes every entry before
 * it in its asset's chain. GET /v1/vault/anchors/:id states the newest anchored entry, its
 * inclusion proof and the root's anchors, with the head as svc signs it now.
 */
import { isoTime } from "../../core/clock.ts";
import { notFound } from "../../core/errors.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { anchorPending, leafInclusion, type LeafSource, scheduleBatchAnchoring } from "../anchors/index.ts";
import { findAsset } from "./assets.ts";
import { hashesUnder, newestAnchoredEntry, pendingEntries, setEntryAnchor, unanchoredEntries } from "./chain.ts";
import { ANCHOR_BATCH_MAX } from "./limits.ts";

export const ANCHOR_JOB = "vault.anchor";

export const VAULT_MERKLE_ALG =
  "RFC 6962 (Certificate Transparency) Merkle tree over SHA-256: leaf = a chain entry's hash (64 lowercase hex characters) as ASCII bytes, leaf_hash = SHA-256(0x00 || leaf), " +
  "node hash = SHA-256(0x01 || left || right), split at the largest power of two smaller than the number of leaves; leaves in append order across assets; " +
  "proof is the RFC 6962 §2.1.1 audit path of the leaf, nearest sibling first";

const VERIFY =
  "Recompute the chain from GET /v1/vault/chain/{id} up to anchored.seq and compare its hash with anchored.hash; fold `proof` from SHA-256(0x00 || hash) at leaf_index in a tree of tree_size leaves " +
  "and compare with root; then check the root's anchors (each says how), or GET /v1/anchors/{root}. head_statement is svc's EIP-191 signature over the current head (POST /v1/receipts/verify checks it).";

const SEP = "\u0000";

const entries = (ctx: Context): LeafSource => ({
  pending: (limit) => unanchoredEntries(ctx, limit).map((e) => ({ id: `${e.asset_id}${SEP}${e.seq}`, leaf: e.hash, ref: `vault:${e.asset_id}:${e.seq}` })),
  place: (id, root, index) => {
    const [assetId, seq] = id.split(SEP) as [string, string];
    setEntryAnchor(ctx, assetId, Number(seq), root, index);
  },
  leavesUnder: (root) => hashesUnder(ctx, root),
});

/** One root over the entries not yet anchored (at most ANCHOR_BATCH_MAX), or null when there are none. */
export const anchorPendingEntries = (ctx: Context): { root: string; tree_size: number } | null => anchorPending(ctx, entries(ctx), ANCHOR_BATCH_MAX);

export function registerVaultJobs(ctx: Context): void {
  scheduleBatchAnchoring(ctx, ANCHOR_JOB, ctx.config.vault.anchor_interval_secs * 1000, entries(ctx), ANCHOR_BATCH_MAX, "vault chain entries");
}

/** GET /v1/vault/anchors/:id: the head (signed now), the newest anchored entry with its proof, and how many wait for the next pass. */
export function chainAnchors(ctx: Context, assetId: string) {
  const asset = findAsset(ctx, assetId);
  if (!asset) throw notFound("vault asset");
  const newest = newestAnchoredEntry(ctx, asset.id);
  let anchored = null;
  if (newest) {
    const at = leafInclusion(ctx, entries(ctx), newest.hash, newest.anchor_root, newest.anchor_index);
    anchored = { seq: newest.seq, hash: newest.hash, state: at.state, root: at.root, leaf_index: at.leafIndex, tree_size: at.treeSize, leaf_hash: at.leafHash, proof: at.proof, block: at.block };
  }
  const head = { seq: asset.chain_seq, hash: asset.chain_head };
  return {
    asset_id: asset.id,
    head,
    head_statement: signStatement(ctx.signer, { v: 1, type: "vault-chain-head", asset_id: asset.id, seq: head.seq, hash: head.hash, issued_at: isoTime(ctx.clock.now()) }),
    anchored,
    pending_entries: pendingEntries(ctx, asset.id),
    merkle_alg: VAULT_MERKLE_ALG,
    verify: VERIFY,
  };
}
