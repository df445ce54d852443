/**
 * libsecp256k1 (Bitcoin Core's secp256k1 library, the reference implementation) through
 * bun:ffi, for the one operation on the metered hot path: a recoverable ECDSA signature over a
 * 32-byte digest. ~31 µs instead of ~150 µs for @noble/secp256k1 on the bench machine — a
 * quarter of a metered call's CPU at concurrency 64 went to signing (bench/README.md).
 *
 * The library is the system's (Debian/Ubuntu `libsecp256k1-1` or `libsecp256k1-2`; install.sh
 * and test/run.sh install it), not part of the binary: without it, or with `receipts.secp256k1
 * = "js"`, noble signs, and the bytes are the same either way — both use RFC 6979 nonces
 * (HMAC-SHA256) and low-s signatures. That is checked, not assumed: a library is used only
 * after it signed a fixed digest exactly as noble does.
 *
 * Recovering a signer's public key goes through it as well when it is loaded (~42 µs instead of
 * ~1.5 ms: verifying a run's receipts, a passport's history, the public verify route); checked
 * the same way, and against noble in the tests on valid, high-s and malformed signatures.
 */
import { dlopen, FFIType } from "bun:ffi";
import { randomBytes } from "node:crypto";

/**
 * Names the dynamic loader resolves through its cache and standard directories, newest ABI
 * first: the sonames of releases 0.2 and later. Not the bare libsecp256k1.so, which may be a
 * much older build.
 */
const SYSTEM_NAMES = ["libsecp256k1.so.2", "libsecp256k1.so.1"];

/** SECP256K1_CONTEXT_SIGN: what releases before 0.2 need to sign; later ones accept it as NONE. */
const CONTEXT_SIGN = (1 << 0) | (1 << 9);

const SYMBOLS = {
  secp256k1_context_create: { args: [FFIType.u32], returns: FFIType.ptr },
  secp256k1_context_randomize: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  secp256k1_ecdsa_sign_recoverable: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  secp256k1_ecdsa_recoverable_signature_serialize_compact: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  secp256k1_ecdsa_recoverable_signature_parse_compact: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  secp256k1_ecdsa_recover: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  secp256k1_ec_pubkey_serialize: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
} as const;

/** SECP256K1_EC_UNCOMPRESSED: 0x04 ‖ x ‖ y. */
const EC_UNCOMPRESSED = 2;

export interface NativeSecp256k1 {
  /** Where it was loaded from (the name the loader resolved, or the configured path). */
  readonly source: string;
  /** r ‖ s (64 bytes) and the recovery id (0 or 1) of the signature of `digest` with `secretKey`. */
  signDigest(digest: Uint8Array, secretKey: Uint8Array): { compact: Uint8Array; recovery: number };
  /** The uncompressed public key (65 bytes) that signed `digest` as r ‖ s with `recovery`; null when none does. */
  recoverPublicKey(digest: Uint8Array, compact: Uint8Array, recovery: number): Uint8Array | null;
}

/**
 * Opens the library at `source` (a path, or a name for the loader to resolve) and makes a
 * randomized context (blinding against timing side channels). Throws with the loader's reason.
 */
export function openNativeSecp256k1(source: string): NativeSecp256k1 {
  const lib = dlopen(source, SYMBOLS);
  const f = lib.symbols;
  const context = f.secp256k1_context_create(CONTEXT_SIGN);
  if (!context) throw new Error(`${source}: secp256k1_context_create failed`);
  if (f.secp256k1_context_randomize(context, randomBytes(32)) !== 1) throw new Error(`${source}: secp256k1_context_randomize failed`);
  // The opaque recoverable signature is 65 bytes; these buffers are reused (one thread per module instance).
  const opaque = new Uint8Array(65);
  const recovery = new Int32Array(1);
  const publicKey = new Uint8Array(64);
  const length = new BigUint64Array(1);
  return {
    source,
    signDigest(digest, secretKey) {
      if (digest.length !== 32) throw new RangeError("a digest to sign is 32 bytes");
      if (secretKey.length !== 32) throw new RangeError("a secp256k1 secret key is 32 bytes");
      // NULL nonce function: the library's default, RFC 6979.
      if (f.secp256k1_ecdsa_sign_recoverable(context, opaque, digest, secretKey, null, null) !== 1) throw new Error("secp256k1: the secret key is invalid");
      const compact = new Uint8Array(64);
      f.secp256k1_ecdsa_recoverable_signature_serialize_compact(context, compact, recovery, opaque);
      return { compact, recovery: recovery[0]! };
    },
    recoverPublicKey(digest, compact, recoveryId) {
      if (digest.length !== 32 || compact.length !== 64 || (recoveryId !== 0 && recoveryId !== 1)) return null;
      // parse refuses r or s at or above the group order; recover refuses zero and points off the curve.
      if (f.secp256k1_ecdsa_recoverable_signature_parse_compact(context, opaque, compact, recoveryId) !== 1) return null;
      if (f.secp256k1_ecdsa_recover(context, publicKey, opaque, digest) !== 1) return null;
      const out = new Uint8Array(65);
      length[0] = 65n;
      f.secp256k1_ec_pubkey_serialize(context, out, length, publicKey, EC_UNCOMPRESSED);
      return out;
    },
  };
}

/**
 * The library for a `receipts.secp256k1` setting: "js" → none; "auto" → the system's if one
 * loads, else none; a path → that file, or an error saying why it cannot be used (an operator
 * who named a file wants to know). `agrees` is the check against the JS implementation.
 */
export function loadNativeSecp256k1(setting: string, agrees: (lib: NativeSecp256k1) => boolean): NativeSecp256k1 | null {
  if (setting === "js") return null;
  const candidates = setting === "auto" ? SYSTEM_NAMES : [setting];
  let reason = "";
  for (const source of candidates) {
    let lib: NativeSecp256k1;
    try {
      lib = openNativeSecp256k1(source);
    } catch (err) {
      reason = err instanceof Error ? err.message : String(err);
      continue;
    }
    if (agrees(lib)) return lib;
    reason = `${source} signs differently from @noble/secp256k1 on a test digest`;
  }
  if (setting !== "auto") throw new Error(`receipts.secp256k1 = ${JSON.stringify(setting)} cannot be used: ${reason}`);
  return null;
}
