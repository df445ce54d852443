/**
 * Merkle trees as Certificate Transparency defines them (RFC 6962 §2.1, kept unchanged in
 * RFC 9162 §2.1), so anyone can recompute a root or check an inclusion proof with an
 * off-the-shelf CT library (Go transparency-dev/merkle, Rust ct-merkle, …):
 *
 *   leaf hash  = SHA-256(0x00 ‖ leaf bytes)
 *   node hash  = SHA-256(0x01 ‖ left ‖ right)
 *   MTH({})    = SHA-256("")
 *   MTH(D[n])  = node(MTH(D[0:k]), MTH(D[k:n])) with k the largest power of two < n
 *
 * The 0x00/0x01 prefixes separate leaves from nodes, so no leaf can pose as an inner node
 * (the second-preimage trick against plain Merkle trees). Leaves are used as given: for svc,
 * the receipt strings (base64url statements), as UTF-8 bytes.
 *
 * The tree is built bottom-up, a level at a time, with a lone last node carried up unchanged:
 * that gives exactly the RFC's left-balanced tree (its split at the largest power of two) in
 * O(n) hashes, and every audit path in O(log n) — recursing on the RFC's definition would
 * rehash whole subtrees for each proof.
 */
import { createHash } from "node:crypto";

/** Said in proofs and anchor documents, so a verifier knows which construction to apply. */
export const MERKLE_ALG =
  "RFC 6962 (Certificate Transparency) Merkle tree over SHA-256: leaf hash = SHA-256(0x00 || leaf), " +
  "node hash = SHA-256(0x01 || left || right), split at the largest power of two smaller than the number of leaves; " +
  "leaves are the receipt strings (base64url) as UTF-8 bytes, in order; inclusion proofs are RFC 6962 §2.1.1 audit paths (sibling hashes from the leaf up)";

const LEAF_PREFIX = Buffer.from([0]);
const NODE_PREFIX = Buffer.from([1]);

type Bytes = Uint8Array | string;

const bytesOf = (leaf: Bytes): Uint8Array => (typeof leaf === "string" ? Buffer.from(leaf, "utf8") : leaf);

export function leafHash(leaf: Bytes): Buffer {
  return createHash("sha256").update(LEAF_PREFIX).update(bytesOf(leaf)).digest();
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash("sha256").update(NODE_PREFIX).update(left).update(right).digest();
}

/** MTH of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Buffer = createHash("sha256").digest();

export class MerkleTree {
  /** levels[0] are the leaf hashes; the last level holds the root alone. */
  private readonly levels: Buffer[][];

  /** Leaves in order: strings are taken as UTF-8. */
  static of(leaves: Bytes[]): MerkleTree {
    return new MerkleTree(leaves.map(leafHash));
  }

  /** A tree over leaf hashes already computed (e.g. stored ones). */
  constructor(leafHashes: Buffer[]) {
    const levels: Buffer[][] = [leafHashes];
    let level = leafHashes;
    while (level.length > 1) {
      const up: Buffer[] = [];
      for (let i = 0; i + 1 < level.length; i += 2) up.push(nodeHash(level[i]!, level[i + 1]!));
      if (level.length % 2 === 1) up.push(level[level.length - 1]!); // carried up: the RFC's right subtree is smaller
      levels.push(up);
      level = up;
    }
    this.levels = levels;
  }

  get size(): number {
    return this.levels[0]!.length;
  }

  get root(): Buffer {
    return this.size === 0 ? EMPTY_ROOT : this.levels[this.levels.length - 1]![0]!;
  }

  get leafHashes(): readonly Buffer[] {
    return this.levels[0]!;
  }

  /**
   * The audit path of leaf `index` (RFC 6962 §2.1.1 PATH), nearest sibling first. A node carried
   * up without a sibling adds nothing at that level, as in the RFC's recursion.
   */
  proof(index: number): Buffer[] {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) throw new RangeError(`leaf index ${index} is outside a tree of ${this.size}`);
    const path: Buffer[] = [];
    let i = index;
    for (let l = 0; l < this.levels.length - 1; l++) {
      const level = this.levels[l]!;
      const sibling = i ^ 1;
      if (sibling < level.length) path.push(level[sibling]!);
      i >>= 1;
    }
    return path;
  }
}
