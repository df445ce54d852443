/**
 * The tests' own Merkle inclusion-proof verifier, written from RFC 9162 §2.1.3.2 and sharing
 * nothing with src/ (its SHA-256 is @noble/hashes', its loop the RFC's), so a proof svc hands
 * out is checked the way a third party would check it.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export const hashLeaf = (leaf: Uint8Array) => sha256(concat(new Uint8Array([0]), leaf));
export const hashChildren = (l: Uint8Array, r: Uint8Array) => sha256(concat(new Uint8Array([1]), l, r));

/** True when `path` proves that the leaf with hash `leaf` sits at `index` in the tree of `size` leaves whose root is `root`. */
export function verifyInclusion(index: number, size: number, leaf: Uint8Array, path: Uint8Array[], root: Uint8Array): boolean {
  if (!Number.isInteger(index) || index < 0 || index >= size || leaf.length !== 32 || root.length !== 32) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (p.length !== 32 || sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = hashChildren(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = hashChildren(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && bytesToHex(r) === bytesToHex(root);
}

/** The same check for a receipt string and a proof as the HTTP API hands them out (hex). */
export function verifyReceiptInclusion(receipt: string, index: number, size: number, pathHex: string[], rootHex: string): boolean {
  return verifyInclusion(index, size, hashLeaf(new TextEncoder().encode(receipt)), pathHex.map((h) => hexToBytes(h)), hexToBytes(rootHex));
}
