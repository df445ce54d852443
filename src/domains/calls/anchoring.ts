/**
 * Anchoring commits: a recurring pass gathers the commits made since the last one, records one
 * Merkle root over their receipts (in commit order) and anchors it, through the anchors area's
 * front door — the same roots and anchors as run proofs and receipt batches, shown at
 * GET /v1/anchors/:root. A leaf is the commit's receipt string, which states the commitment,
 * so an anchored root proves the commitment existed when the root was anchored.
 */
import type { Static } from "@sinclair/typebox";
import { MERKLE_ALG, MerkleTree } from "../../core/merkle.ts";
import type { Context } from "../../context.ts";
import { anchorBlock, anchorRoot, hex, isRootAnchored, recordRoot } from "../anchors/index.ts";
import { ANCHOR_BATCH_MAX } from "./limits.ts";
// Types only: the shape served is declared once, in models.ts.
import type { CallAnchor } from "./models.ts";
import { type CallRecord, leavesOf, setAnchor, unanchored } from "./store.ts";

export const ANCHOR_JOB = "calls.anchor";

/** One root over the commits not yet anchored (at most ANCHOR_BATCH_MAX), or null when there are none. One transaction: a commit is never under two of these roots. */
export function anchorPendingCommits(ctx: Context): { root: string; tree_size: number } | null {
  return ctx.tx.run(() => {
    const leaves = unanchored(ctx, ANCHOR_BATCH_MAX);
    if (!leaves.length) return null;
    const { root, tree } = recordRoot(ctx, leaves);
    leaves.forEach((l, i) => setAnchor(ctx, l.id, root, i));
    anchorRoot(ctx, root);
    return { root, tree_size: tree.size };
  });
}

export function registerAnchorJob(ctx: Context): void {
  const every = ctx.config.calls.anchor_interval_secs * 1000;
  ctx.scheduler.every(
    ANCHOR_JOB,
    every,
    () => {
      let batch;
      while ((batch = anchorPendingCommits(ctx))) ctx.log.info("sealed calls anchored", batch);
    },
    every,
  );
}

const VERIFY =
  "leaf_hash = SHA-256(0x00 || receipt string as UTF-8); fold `proof` from it at `leaf_index` in a tree of `tree_size` leaves (RFC 9162 §2.1.3.2) and compare with `root`; " +
  "then check the root's anchors (each says how), or GET /v1/anchors/{root}";

/** Where a call's commit stands: pending until the next pass, then its root, inclusion proof and the root's anchors. */
export function callAnchor(ctx: Context, call: CallRecord): Static<typeof CallAnchor> {
  const leafHash = hex(MerkleTree.of([call.receipt.receipt]).leafHashes[0]!);
  if (call.anchorRoot === null || call.anchorIndex === null) {
    return { state: "pending", root: null, leaf_index: null, tree_size: null, leaf_hash: leafHash, proof: [], merkle_alg: MERKLE_ALG, block: null, verify: VERIFY };
  }
  const tree = MerkleTree.of(leavesOf(ctx, call.anchorRoot));
  return {
    state: isRootAnchored(ctx, call.anchorRoot) ? "anchored" : "batched",
    root: call.anchorRoot,
    leaf_index: call.anchorIndex,
    tree_size: tree.size,
    leaf_hash: leafHash,
    proof: tree.proof(call.anchorIndex).map(hex),
    merkle_alg: MERKLE_ALG,
    block: anchorBlock(ctx, call.anchorRoot),
    verify: VERIFY,
  };
}

/** The owner list's short form: the state and the root only. */
export function anchorState(ctx: Context, call: CallRecord): "pending" | "batched" | "anchored" {
  if (call.anchorRoot === null) return "pending";
  return isRootAnchored(ctx, call.anchorRoot) ? "anchored" : "batched";
}
