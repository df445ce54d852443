/**
 * EIP-191 personal_sign over secp256k1, the scheme receipts and signed statements use, so any
 * Ethereum library (viem, ethers, web3.py) verifies them without our code.
 *
 * Easy to get wrong (ARCHITECTURE.md §8): the digest is keccak256("\x19Ethereum Signed
 * Message:\n" + decimal byte length + message); noble must sign that digest with
 * prehash:false; noble's recovered format puts the recovery byte first while Ethereum wants
 * r ‖ s ‖ v with v = 27 + recovery.
 */
import { createHash, createHmac } from "node:crypto";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { keccak256 } from "./keccak.ts";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import * as secp from "@noble/secp256k1";
import { loadNativeSecp256k1, type NativeSecp256k1 } from "./secp256k1-native.ts";

// noble-secp256k1 v3 ships without hash functions; RFC 6979 nonces need HMAC-SHA256, about a
// dozen calls per signature. The runtime's native ones (BoringSSL) take a tenth of the time of
// the JS ones, which is ~10% of a receipt signature (bench/receipts.ts).
secp.hashes.hmacSha256 = (key, msg) => new Uint8Array(createHmac("sha256", key).update(msg).digest());
secp.hashes.sha256 = (msg) => new Uint8Array(createHash("sha256").update(msg).digest());

const encoder = new TextEncoder();

export function hashMessage(message: string | Uint8Array): Uint8Array {
  const body = typeof message === "string" ? encoder.encode(message) : message;
  const prefix = encoder.encode(`\x19Ethereum Signed Message:\n${body.length}`);
  const buf = new Uint8Array(prefix.length + body.length);
  buf.set(prefix);
  buf.set(body, prefix.length);
  return keccak256(buf);
}

/** EIP-55 mixed-case checksum of a 20-byte hex address. */
export function toChecksumAddress(address: string): string {
  const hex = address.toLowerCase().replace(/^0x/, "");
  if (!/^[0-9a-f]{40}$/.test(hex)) throw new Error("not a 20-byte hex address");
  const hash = bytesToHex(keccak_256(encoder.encode(hex)));
  let out = "0x";
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i];
  return out;
}

export function isAddress(value: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(value);
}

export function addressOfPublicKey(publicKey: Uint8Array): string {
  const uncompressed = publicKey.length === 65 ? publicKey : secp.Point.fromBytes(publicKey).toBytes(false);
  return toChecksumAddress(bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12)));
}

export function addressOfSecretKey(secretKey: Uint8Array): string {
  return addressOfPublicKey(secp.getPublicKey(secretKey, false));
}

export function generateSecretKey(): Uint8Array {
  return secp.utils.randomSecretKey();
}

/** r ‖ s and the recovery id of noble's signature of a digest. */
function signDigestJs(digest: Uint8Array, secretKey: Uint8Array): { compact: Uint8Array; recovery: number } {
  const recovered = secp.sign(digest, secretKey, { prehash: false, format: "recovered" });
  return { compact: recovered.subarray(1, 65), recovery: recovered[0]! };
}

/** noble's recovery of the uncompressed public key behind r ‖ s and a recovery id; throws on a signature no key made. */
function recoverPublicKeyJs(digest: Uint8Array, compact: Uint8Array, recovery: number): Uint8Array {
  const recovered = new Uint8Array(65);
  recovered[0] = recovery;
  recovered.set(compact, 1);
  const key = secp.recoverPublicKey(recovered, digest, { prehash: false });
  return key.length === 65 ? key : secp.Point.fromBytes(key).toBytes(false);
}

/** The library signs and recovers exactly as noble does: one fixed digest and key, compared byte for byte. */
function agreesWithJs(lib: NativeSecp256k1): boolean {
  const key = new Uint8Array(32).fill(0x42);
  const digest = hashMessage("svc: libsecp256k1 agrees with @noble/secp256k1");
  const a = lib.signDigest(digest, key);
  const b = signDigestJs(digest, key);
  if (a.recovery !== b.recovery || bytesToHex(a.compact) !== bytesToHex(b.compact)) return false;
  const recovered = lib.recoverPublicKey(digest, a.compact, a.recovery);
  return recovered !== null && bytesToHex(recovered) === bytesToHex(secp.getPublicKey(key, false));
}

/** What signs in this process (secp256k1-native.ts): undefined until the first signature or useSecp256k1. */
let native: NativeSecp256k1 | null | undefined;
/** The setting `native` was chosen by (every context of a process names the same one: load once). */
let chosen: string | undefined;

/**
 * Chooses the implementation that signs in this process (receipts.secp256k1): "auto" (the
 * system's libsecp256k1 when it loads, else noble), "js" (noble), or a library path (an error
 * when it cannot be used). Until called, the first signature chooses "auto". What it returns
 * names the choice, for `svc doctor` and the startup log.
 */
export function useSecp256k1(setting: string): string {
  if (setting !== chosen || native === undefined) {
    native = loadNativeSecp256k1(setting, agreesWithJs);
    chosen = setting;
  }
  return secp256k1Implementation();
}

/** "libsecp256k1 (<where>)" or "@noble/secp256k1 (JavaScript)". */
export function secp256k1Implementation(): string {
  return nativeSecp256k1() ? `libsecp256k1 (${native!.source})` : "@noble/secp256k1 (JavaScript)";
}

/** Whether libsecp256k1 signs in this process. */
export function nativeSecp256k1(): boolean {
  if (native === undefined) native = loadNativeSecp256k1("auto", agreesWithJs);
  return native !== null;
}

/**
 * A signature over a 32-byte digest the caller already hashed (EIP-191 below; an EIP-712
 * typed-data hash): 0x-prefixed hex of r ‖ s ‖ v (65 bytes, v = 27 or 28).
 */
export function signDigest(secretKey: Uint8Array, digest: Uint8Array): string {
  const { compact, recovery } = nativeSecp256k1() ? native!.signDigest(digest, secretKey) : signDigestJs(digest, secretKey);
  const out = new Uint8Array(65);
  out.set(compact);
  out[64] = 27 + recovery;
  return "0x" + bytesToHex(out);
}

/** personal_sign: 0x-prefixed hex of r ‖ s ‖ v (65 bytes, v = 27 or 28). */
export function signMessage(secretKey: Uint8Array, message: string | Uint8Array): string {
  return signDigest(secretKey, hashMessage(message));
}

/** The checksummed address whose key produced `signature` over `message`. Throws on a malformed signature. */
export function recoverMessageAddress(message: string | Uint8Array, signature: string): string {
  const hex = signature.replace(/^0x/, "");
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) throw new Error("signature must be 65 bytes of hex");
  const bytes = hexToBytes(hex);
  const v = bytes[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) throw new Error("signature has an invalid recovery byte");
  const digest = hashMessage(message);
  const compact = bytes.subarray(0, 64);
  let publicKey: Uint8Array;
  if (nativeSecp256k1()) {
    const key = native!.recoverPublicKey(digest, compact, recovery);
    if (!key) throw new Error("no public key recovers from this signature");
    publicKey = key;
  } else publicKey = recoverPublicKeyJs(digest, compact, recovery);
  return addressOfPublicKey(publicKey);
}
