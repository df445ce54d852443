/**
 * The Merkle tree of src/core/merkle.ts against the published RFC 6962 test vectors, and every
 * inclusion proof it produces checked by the test's own verifier (test/support/inclusion-proof.ts,
 * written from RFC 9162 §2.1.3.2 independently of src/: its own SHA-256 from @noble/hashes, its own loop).
 *
 * Vectors: github.com/transparency-dev/merkle (the Go CT Merkle library, successor of the
 * reference data in google/certificate-transparency's merkle_tree_test):
 *  - testonly/constants.go @ 582a6ad190b6848f1d26f8bf08ddef29955d9db1: LeafInputs, NodeHashes,
 *    RootHashes (sizes 0..8), EmptyRootHash;
 *  - proof/verify_test.go @ 02194e9afb6c1d95b5381350007963aa70fff472: inclusionProofs
 *    (1-based leaf number, tree size, audit path).
 * Note the reference leaves are 0, 1, 1, 2, 2, 4, 8 and 16 bytes long, as published.
 */
import { describe, expect, test } from "bun:test";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { EMPTY_ROOT, leafHash, MerkleTree, nodeHash } from "../../src/core/merkle.ts";
import { hashChildren, hashLeaf, verifyInclusion } from "../support/inclusion-proof.ts";

// ---- published vectors -------------------------------------------------------------------

const LEAF_INPUTS = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(hexToBytes);

const NODE_HASHES: string[][] = [
  [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
    "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
    "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658",
    "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
    "46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1",
  ],
  [
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
  ],
  ["d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7", "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
  ["5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"],
];

/** Indexed by tree size. */
const ROOT_HASHES = [
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];

/** [1-based leaf, tree size, audit path]. */
const INCLUSION_PROOFS: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    6,
    8,
    [
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [3, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]],
  [
    2,
    5,
    [
      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
];

/** MTH straight from the RFC's recursive definition, for trees beyond the published sizes. */
function referenceRoot(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256(new Uint8Array());
  if (leaves.length === 1) return hashLeaf(leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return hashChildren(referenceRoot(leaves.slice(0, k)), referenceRoot(leaves.slice(k)));
}

const hex = (b: Uint8Array) => bytesToHex(b);

// ---- tests -------------------------------------------------------------------------------

describe("RFC 6962 published vectors", () => {
  test("leaf hashes are the published level-0 node hashes", () => {
    LEAF_INPUTS.forEach((leaf, i) => expect(hex(leafHash(leaf))).toBe(NODE_HASHES[0]![i]!));
  });

  test("inner nodes of the 8-leaf tree are the published node hashes", () => {
    for (let level = 1; level < NODE_HASHES.length; level++) {
      NODE_HASHES[level]!.forEach((expected, i) => {
        const below = NODE_HASHES[level - 1]!;
        expect(hex(nodeHash(hexToBytes(below[2 * i]!), hexToBytes(below[2 * i + 1]!)))).toBe(expected);
      });
    }
  });

  test("the empty tree's root is SHA-256 of nothing; roots of sizes 1..8 are the published ones", () => {
    expect(hex(EMPTY_ROOT)).toBe(ROOT_HASHES[0]!);
    expect(hex(MerkleTree.of([]).root)).toBe(ROOT_HASHES[0]!);
    for (let n = 1; n <= 8; n++) expect(hex(MerkleTree.of(LEAF_INPUTS.slice(0, n)).root)).toBe(ROOT_HASHES[n]!);
  });

  test("audit paths are the published inclusion proofs", () => {
    for (const [leaf, size, path] of INCLUSION_PROOFS) {
      expect(MerkleTree.of(LEAF_INPUTS.slice(0, size)).proof(leaf - 1).map(hex)).toEqual(path);
    }
  });

  test("every audit path of the 8-leaf tree is made of the published node hashes (sibling at each level)", () => {
    const tree = MerkleTree.of(LEAF_INPUTS);
    for (let i = 0; i < 8; i++) {
      expect(tree.proof(i).map(hex)).toEqual([NODE_HASHES[0]![i ^ 1]!, NODE_HASHES[1]![(i >> 1) ^ 1]!, NODE_HASHES[2]![(i >> 2) ^ 1]!]);
    }
  });

  test("the independent verifier accepts the published proofs against the published roots", () => {
    for (const [leaf, size, path] of INCLUSION_PROOFS) {
      expect(verifyInclusion(leaf - 1, size, hexToBytes(NODE_HASHES[0]![leaf - 1]!), path.map(hexToBytes), hexToBytes(ROOT_HASHES[size]!))).toBe(true);
    }
  });
});

describe("every proof svc produces verifies independently", () => {
  test("sizes 1..8, every leaf, against the published roots; corrupted proofs are refused", () => {
    for (let n = 1; n <= 8; n++) {
      const tree = MerkleTree.of(LEAF_INPUTS.slice(0, n));
      const root = hexToBytes(ROOT_HASHES[n]!);
      for (let i = 0; i < n; i++) {
        const leaf = hashLeaf(LEAF_INPUTS[i]!);
        const path = tree.proof(i).map((b) => new Uint8Array(b));
        expect(verifyInclusion(i, n, leaf, path, root)).toBe(true);
        // The probes transparency-dev runs: wrong index, wrong size, wrong leaf, extra or missing or flipped nodes.
        if (n > 1) expect(verifyInclusion(i ^ 1, n, leaf, path, root)).toBe(false);
        expect(verifyInclusion(i, n * 2, leaf, path, root)).toBe(false);
        expect(verifyInclusion(i, n, hashLeaf(new Uint8Array([9, 9])), path, root)).toBe(false);
        expect(verifyInclusion(i, n, leaf, [...path, root], root)).toBe(false);
        expect(verifyInclusion(i, n, leaf, [root, ...path], root)).toBe(false);
        if (path.length) {
          expect(verifyInclusion(i, n, leaf, path.slice(0, -1), root)).toBe(false);
          const flipped = path.map((p) => p.slice());
          flipped[0]![0]! ^= 8;
          expect(verifyInclusion(i, n, leaf, flipped, root)).toBe(false);
        }
      }
    }
  });

  test("larger trees: the root equals the RFC's recursive definition and every proof verifies", () => {
    for (const n of [9, 10, 13, 16, 17, 31, 33, 64, 65, 100]) {
      const leaves = Array.from({ length: n }, (_, i) => new TextEncoder().encode(`receipt-${i}`));
      const tree = MerkleTree.of(leaves);
      const root = referenceRoot(leaves);
      expect(hex(tree.root)).toBe(hex(root));
      for (let i = 0; i < n; i++) expect(verifyInclusion(i, n, hashLeaf(leaves[i]!), tree.proof(i), root)).toBe(true);
    }
  });

  test("string leaves are their UTF-8 bytes; a tree rebuilt from stored leaf hashes is the same tree", () => {
    const strings = ["eyJhIjoxfQ", "eyJiIjoyfQ", "eyJjIjozfQ"];
    const a = MerkleTree.of(strings);
    const b = MerkleTree.of(strings.map((s) => new TextEncoder().encode(s)));
    expect(hex(a.root)).toBe(hex(b.root));
    expect(hex(new MerkleTree([...a.leafHashes]).root)).toBe(hex(a.root));
  });

  test("an index outside the tree is refused", () => {
    const tree = MerkleTree.of(LEAF_INPUTS.slice(0, 3));
    expect(() => tree.proof(3)).toThrow(RangeError);
    expect(() => tree.proof(-1)).toThrow(RangeError);
    expect(() => MerkleTree.of([]).proof(0)).toThrow(RangeError);
  });
});
