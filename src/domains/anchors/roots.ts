/**
 * Merkle roots over receipts, as stored: the root, its size and its ordered leaves (receipt id
 * and leaf hash). Run proofs and periodic batches both record their trees here; anchors hang
 * off the root.
 */
import { MerkleTree } from "../../core/merkle.ts";
import type { Context } from "../../context.ts";
import { sharedAmong } from "../receipts/index.ts";

export interface ReceiptLeaf {
  receiptId: string;
  /** The receipt string (base64url statement): the leaf's bytes. */
  receipt: string;
}

export const ROOT_PATTERN = "^[0-9a-fA-F]{64}$";

/** What every anchor of a root carries: `<prefix>:v1:<root>`. */
export const memoFor = (ctx: Context, root: string): string => `${ctx.config.anchors.memo_prefix}:v1:${root}`;

export const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** The tree over the leaves, recorded (once: the same root is the same tree). Call inside a transaction with the other writes that need the root. */
export function recordRoot(ctx: Context, leaves: ReceiptLeaf[]): { root: string; tree: MerkleTree } {
  const tree = MerkleTree.of(leaves.map((l) => l.receipt));
  const root = hex(tree.root);
  ctx.tx.run(() => {
    const inserted = ctx.db.query("INSERT OR IGNORE INTO merkle_roots (root, tree_size, created_at) VALUES (?, ?, ?)").run(root, tree.size, ctx.clock.now()).changes;
    if (!inserted) return;
    const leaf = ctx.db.prepare("INSERT INTO merkle_leaves (root, position, receipt_id, leaf_hash) VALUES (?, ?, ?, ?)");
    tree.leafHashes.forEach((h, i) => leaf.run(root, i, leaves[i]!.receiptId, hex(h)));
  });
  return { root, tree };
}

export interface RootRow {
  root: string;
  tree_size: number;
  created_at: number;
}

export function findRoot(ctx: Context, root: string): RootRow | null {
  return ctx.db.query<RootRow, [string]>("SELECT root, tree_size, created_at FROM merkle_roots WHERE root = ?").get(root.toLowerCase());
}

export interface PublicLeaf {
  index: number;
  leaf_hash: string;
  /** Only while the receipt is shared by its owner; null otherwise (see docs/receipts.md). */
  receipt_id: string | null;
}

/**
 * The ordered leaves as the public may see them. A leaf hash reveals nothing of the receipt
 * (the receipt string holds a random id, so it cannot be guessed and hashed); the receipt id
 * is an owner's to publish, so it appears only for receipts the owner shares.
 */
export function publicLeaves(ctx: Context, root: string): PublicLeaf[] {
  const leaves = ctx.db
    .query<{ position: number; leaf_hash: string; receipt_id: string }, [string]>("SELECT position, leaf_hash, receipt_id FROM merkle_leaves WHERE root = ? ORDER BY position")
    .all(root);
  const shared = sharedAmong(ctx, leaves.map((l) => l.receipt_id));
  return leaves.map((l) => ({ index: l.position, leaf_hash: l.leaf_hash, receipt_id: shared.has(l.receipt_id) ? l.receipt_id : null }));
}
