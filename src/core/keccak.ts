/**
 * Keccak-256 for EIP-191 message hashes: on the path of every receipt signed and every signature
 * recovered. hash-wasm's WebAssembly keccak takes ~4 µs for a receipt's ~800-byte message where
 * noble's JavaScript one takes ~24 µs (bench/README.md). The module is compiled once per thread,
 * in the background from when this file loads (no top-level await: a signing thread must set its
 * message handler at once); until it is ready, or where WebAssembly cannot run, noble hashes
 * instead, with the same digest.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { createKeccak, type IHasher } from "hash-wasm";

let wasm: IHasher | null = null;
/** Resolves once the WebAssembly hasher is ready (or could not be made). */
export const keccakReady: Promise<void> = createKeccak(256).then(
  (hasher) => void (wasm = hasher),
  () => undefined,
);

/** Which implementation hashes: for tests and `svc doctor`-style reports. */
export const keccakImplementation = (): "hash-wasm" | "noble" => (wasm ? "hash-wasm" : "noble");

export function keccak256(bytes: Uint8Array): Uint8Array {
  if (!wasm) return keccak_256(bytes);
  // One hasher per thread, used start to finish without a pause: no other call can interleave.
  wasm.init();
  wasm.update(bytes);
  return wasm.digest("binary");
}
