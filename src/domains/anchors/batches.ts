/**
 * Batch anchoring for records of other areas (sealed-call commits, passport credentials): a
 * recurring pass puts the records not yet anchored under one Merkle root — recorded and anchored
 * like receipt batches and run proofs, shown at GET /v1/anchors/:root — and each record's
 * inclusion is read back from the leaves under its root. The owning area keeps its rows (the
 * leaf, and the root and index it landed at) and hands this mechanism three functions over them.
 */
import { leafHash, MerkleTree } from "../../core/merkle.ts";
import type { Context } from "../../context.ts";
import { hex, recordRoot } from "./roots.ts";
import { type AnchorBlock, anchorBlock, anchorRoot } from "./service.ts";
import { isRootAnchored } from "./stats.ts";

export interface LeafSource {
  /**
   * Up to `limit` records not yet under a root, in the order they are to be leaves. `id` is what
   * place() is called with; `ref` names the leaf's record in merkle_leaves (default: `id`).
   */
  pending(limit: number): { id: string; leaf: string; ref?: string }[];
  /** Records where a pending record landed (inside the batch's transaction). */
  place(id: string, root: string, index: number): void;
  /** The leaves under a root, in leaf order: what the root was computed over. */
  leavesUnder(root: string): string[];
}

/** One root over the pending records (at most `limit`), or null when there are none. One transaction: a record is never under two roots. */
export function anchorPending(ctx: Context, source: LeafSource, limit: number): { root: string; tree_size: number } | null {
  return ctx.tx.run(() => {
    const pending = source.pending(limit);
    if (!pending.length) return null;
    const { root, tree } = recordRoot(
      ctx,
      pending.map((p) => ({ receiptId: p.ref ?? p.id, receipt: p.leaf })),
    );
    pending.forEach((p, i) => source.place(p.id, root, i));
    anchorRoot(ctx, root);
    return { root, tree_size: tree.size };
  });
}

/** A recurring job that anchors every pending batch each `everyMs`. */
export function scheduleBatchAnchoring(ctx: Context, job: string, everyMs: number, source: LeafSource, limit: number, what: string): void {
  ctx.scheduler.every(
    job,
    everyMs,
    () => {
      let batch;
      while ((batch = anchorPending(ctx, source, limit))) ctx.log.info(`${what} anchored`, batch);
    },
    everyMs,
  );
}

export type BatchState = "pending" | "batched" | "anchored";

export interface LeafInclusion {
  state: BatchState;
  leafHash: string;
  root: string | null;
  leafIndex: number | null;
  treeSize: number | null;
  /** The RFC 9162 audit path, nearest sibling first. */
  proof: string[];
  block: AnchorBlock | null;
}

/** pending until the next pass; then batched (under a root), and anchored once the root is. */
export const batchState = (ctx: Context, root: string | null): BatchState => (root === null ? "pending" : isRootAnchored(ctx, root) ? "anchored" : "batched");

/** Where one record's leaf stands: its leaf hash, and under a root its index, audit path and the root's anchors. */
export function leafInclusion(ctx: Context, source: Pick<LeafSource, "leavesUnder">, leaf: string, root: string | null, index: number | null): LeafInclusion {
  const hash = hex(leafHash(leaf));
  if (root === null || index === null) return { state: "pending", leafHash: hash, root: null, leafIndex: null, treeSize: null, proof: [], block: null };
  const tree = MerkleTree.of(source.leavesUnder(root));
  return { state: batchState(ctx, root), leafHash: hash, root, leafIndex: index, treeSize: tree.size, proof: tree.proof(index).map(hex), block: anchorBlock(ctx, root) };
}
