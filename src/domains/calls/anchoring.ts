/**
 * Anchoring commits through the anchors area's batch mechanism (anchors/batches.ts): a
 * recurring pass puts the commits made since the last one under one Merkle root (in commit
 * order) and anchors it — the same roots and anchors as run proofs and receipt batches, shown at
 * GET /v1/anchors/:root. A leaf is the commit's receipt string, which states the commitment, so
 * an anchored root proves the commitment existed when the root was anchored.
 */
import type { Static } from "@sinclair/typebox";
import { MERKLE_ALG } from "../../core/merkle.ts";
import type { Context } from "../../context.ts";
import { anchorPending, batchState, leafInclusion, type LeafSource, scheduleBatchAnchoring } from "../anchors/index.ts";
import { ANCHOR_BATCH_MAX } from "./limits.ts";
// Types only: the shape served is declared once, in models.ts.
import type { CallAnchor } from "./models.ts";
import { type CallRecord, leavesOf, setAnchor, unanchored } from "./store.ts";

export const ANCHOR_JOB = "calls.anchor";

const commits = (ctx: Context): LeafSource => ({
  // merkle_leaves names each leaf by the commit's receipt id.
  pending: (limit) => unanchored(ctx, limit).map((c) => ({ id: c.id, leaf: c.receipt, ref: c.receiptId })),
  place: (id, root, index) => setAnchor(ctx, id, root, index),
  leavesUnder: (root) => leavesOf(ctx, root),
});

/** One root over the commits not yet anchored (at most ANCHOR_BATCH_MAX), or null when there are none. */
export const anchorPendingCommits = (ctx: Context): { root: string; tree_size: number } | null => anchorPending(ctx, commits(ctx), ANCHOR_BATCH_MAX);

export function registerAnchorJob(ctx: Context): void {
  scheduleBatchAnchoring(ctx, ANCHOR_JOB, ctx.config.calls.anchor_interval_secs * 1000, commits(ctx), ANCHOR_BATCH_MAX, "sealed calls");
}

const VERIFY =
  "leaf_hash = SHA-256(0x00 || receipt string as UTF-8); fold `proof` from it at `leaf_index` in a tree of `tree_size` leaves (RFC 9162 §2.1.3.2) and compare with `root`; " +
  "then check the root's anchors (each says how), or GET /v1/anchors/{root}";

/** Where a call's commit stands: pending until the next pass, then its root, inclusion proof and the root's anchors. */
export function callAnchor(ctx: Context, call: CallRecord): Static<typeof CallAnchor> {
  const at = leafInclusion(ctx, commits(ctx), call.receipt.receipt, call.anchorRoot, call.anchorIndex);
  return { state: at.state, root: at.root, leaf_index: at.leafIndex, tree_size: at.treeSize, leaf_hash: at.leafHash, proof: at.proof, merkle_alg: MERKLE_ALG, block: at.block, verify: VERIFY };
}

/** The owner list's short form: the state only. */
export const anchorState = (ctx: Context, call: CallRecord) => batchState(ctx, call.anchorRoot);
