/**
 * Receipt verification in the browser, by this page's own code, not by asking svc: recover the
 * signer from the EIP-191 signature over the receipt string (noble secp256k1 + keccak-256,
 * bundled), derive its address, and compare it with the signer svc publishes. So a person
 * trusting neither the operator nor the network can still check that svc's key signed exactly
 * this payload. The rule mirrors docs/receipts.md ("How to verify a receipt").
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import * as secp from "@noble/secp256k1";

const encoder = new TextEncoder();

function hashMessage(message: string): Uint8Array {
  const body = encoder.encode(message);
  const prefix = encoder.encode(`\x19Ethereum Signed Message:\n${body.length}`);
  const buf = new Uint8Array(prefix.length + body.length);
  buf.set(prefix);
  buf.set(body, prefix.length);
  return keccak_256(buf);
}

function checksum(hex40: string): string {
  const hash = bytesToHex(keccak_256(encoder.encode(hex40)));
  let out = "0x";
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? hex40[i]!.toUpperCase() : hex40[i];
  return out;
}

/** The EIP-55 address whose key made `signature` (0x r‖s‖v) over `message`. Throws on a malformed signature. */
export function recoverSigner(message: string, signature: string): string {
  const hex = signature.replace(/^0x/, "");
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) throw new Error("the signature is not 65 bytes of hex");
  const bytes = hexToBytes(hex);
  const v = bytes[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) throw new Error("the signature's recovery byte is not 27 or 28");
  const sig = new Uint8Array(65);
  sig[0] = recovery;
  sig.set(bytes.subarray(0, 64), 1);
  const pub = secp.recoverPublicKey(sig, hashMessage(message), { prehash: false });
  const uncompressed = secp.Point.fromBytes(pub).toBytes(false);
  return checksum(bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12)));
}

/** base64url → the JSON object a receipt carries. */
export function decodeReceipt(receipt: string): Record<string, unknown> {
  const b64 = receipt.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)))) as Record<string, unknown>;
}

export interface PublishedSigner {
  address: string;
  valid_from: string;
  valid_until: string | null;
}

export type Verdict = { valid: true; recovered: string; signer: PublishedSigner } | { valid: false; recovered: string | null; reason: string };

const TIME_FIELDS = ["settled_at", "issued_at", "created_at"];

/**
 * Valid when the signature recovers to a signer svc publishes; a retired signer only for
 * statements dated up to its retirement (so a leaked old key cannot vouch for new receipts).
 */
export function verifyReceipt(receipt: string, signature: string, signers: PublishedSigner[]): Verdict {
  let recovered: string;
  try {
    recovered = recoverSigner(receipt, signature);
  } catch (e) {
    return { valid: false, recovered: null, reason: (e as Error).message };
  }
  const signer = signers.find((s) => s.address.toLowerCase() === recovered.toLowerCase());
  if (!signer) return { valid: false, recovered, reason: "the signature recovers to an address that is not one of svc's published signers" };
  if (signer.valid_until !== null) {
    const payload = decodeReceipt(receipt);
    const field = TIME_FIELDS.find((f) => f in payload);
    const at = field ? Date.parse(String(payload[field])) : Number.NaN;
    if (!Number.isFinite(at) || at > Date.parse(signer.valid_until)) return { valid: false, recovered, reason: "signed by a retired signer after its retirement" };
  }
  return { valid: true, recovered, signer };
}
