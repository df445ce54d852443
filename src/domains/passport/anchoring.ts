/**
 * Anchoring credentials: a recurring pass gathers the credentials issued since the last one,
 * records one Merkle root over their commitments (in issue order) and anchors it, through the
 * anchors area's front door — the same roots and anchors as receipt batches, run proofs and
 * sealed calls, shown at GET /v1/anchors/:root. A leaf is the commitment's 64 lowercase hex
 * characters, so an anchored root proves the credential existed, unchanged, when it was anchored.
 */
import { createHash } from "node:crypto";
import { MerkleTree } from "../../core/merkle.ts";
import type { Context } from "../../context.ts";
import { type AnchorBlock, anchorBlock, anchorRoot, hex, isRootAnchored, recordRoot } from "../anchors/index.ts";
import { ANCHOR_BATCH_MAX } from "./limits.ts";
import { commitmentsUnder, type CredentialRecord, setCredentialAnchor, unanchoredCredentials } from "./store.ts";

export const ANCHOR_JOB = "passport.anchor";

/** Said in every proof: svc's Merkle construction, with a passport's leaf in place of a receipt string. */
export const PASSPORT_MERKLE_ALG =
  "RFC 6962 (Certificate Transparency) Merkle tree over SHA-256: leaf = the commitment's 64 lowercase hex characters as ASCII bytes, leaf_hash = SHA-256(0x00 || leaf), " +
  "node hash = SHA-256(0x01 || left || right), split at the largest power of two smaller than the number of leaves; leaves in issue order; " +
  "siblings are the RFC 6962 §2.1.1 audit path of the leaf, nearest sibling first";

/** One root over the credentials not yet anchored (at most ANCHOR_BATCH_MAX), or null when there are none. One transaction: a credential is never under two roots. */
export function anchorPendingCredentials(ctx: Context): { root: string; tree_size: number } | null {
  return ctx.tx.run(() => {
    const pending = unanchoredCredentials(ctx, ANCHOR_BATCH_MAX);
    if (!pending.length) return null;
    // merkle_leaves names each leaf's record: here the credential id.
    const { root, tree } = recordRoot(ctx, pending.map((c) => ({ receiptId: c.id, receipt: c.commitment })));
    pending.forEach((c, i) => setCredentialAnchor(ctx, c.id, root, i));
    anchorRoot(ctx, root);
    return { root, tree_size: tree.size };
  });
}

export function registerPassportJobs(ctx: Context): void {
  const every = ctx.config.passport.anchor_interval_secs * 1000;
  ctx.scheduler.every(
    ANCHOR_JOB,
    every,
    () => {
      let batch;
      while ((batch = anchorPendingCredentials(ctx))) ctx.log.info("passport credentials anchored", batch);
    },
    every,
  );
}

export type AnchorState = "pending" | "batched" | "anchored";

export interface CredentialAnchor {
  state: AnchorState;
  leafHash: string;
  root: string | null;
  leafIndex: number | null;
  treeSize: number | null;
  siblings: string[];
  block: AnchorBlock | null;
}

const leafHashOf = (commitment: string) => createHash("sha256").update(Buffer.from([0])).update(commitment, "utf8").digest("hex");

/** Where a credential stands: pending until the next pass, then its root, its audit path and the root's anchors. */
export function credentialAnchor(ctx: Context, c: CredentialRecord): CredentialAnchor {
  const leafHash = leafHashOf(c.commitment);
  if (c.anchorRoot === null || c.anchorIndex === null) return { state: "pending", leafHash, root: null, leafIndex: null, treeSize: null, siblings: [], block: null };
  const tree = MerkleTree.of(commitmentsUnder(ctx, c.anchorRoot));
  return {
    state: isRootAnchored(ctx, c.anchorRoot) ? "anchored" : "batched",
    leafHash,
    root: c.anchorRoot,
    leafIndex: c.anchorIndex,
    treeSize: tree.size,
    siblings: tree.proof(c.anchorIndex).map(hex),
    block: anchorBlock(ctx, c.anchorRoot),
  };
}
