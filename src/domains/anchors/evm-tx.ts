/**
 * Signing an EIP-1559 (type 2) transaction, the one kind of transaction svc sends: a zero-value
 * transfer from the anchor wallet to itself whose calldata is a memo.
 *
 *   signed = 0x02 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gas, to, value,
 *                        data, accessList, yParity, r, s])
 *   the signature is over keccak256(0x02 ‖ rlp(the same list without yParity, r, s)),
 *   and the transaction hash is keccak256(signed).
 *
 * Own code rather than a dependency: RLP and one transaction type are ~60 lines on top of the
 * noble libraries svc already ships (viem, which would do it, is a dev dependency only). The
 * tests check every byte against viem's serializer and recover the sender with viem.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import * as secp from "@noble/secp256k1";
// Imported for its side effect too: it gives noble-secp256k1 the HMAC it needs for RFC 6979 nonces.
import { addressOfSecretKey } from "../../core/eip191.ts";

type RlpItem = Uint8Array | RlpItem[];

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Big-endian bytes without leading zeros (RLP's integer form: 0 is the empty string). */
function bigEndian(n: bigint): Uint8Array {
  if (n < 0n) throw new RangeError("RLP integers are unsigned");
  if (n === 0n) return new Uint8Array();
  const hex = n.toString(16);
  return hexToBytes(hex.length % 2 ? `0${hex}` : hex);
}

function lengthPrefix(length: number, short: number): Uint8Array {
  if (length < 56) return new Uint8Array([short + length]);
  const len = bigEndian(BigInt(length));
  return concat([new Uint8Array([short + 55 + len.length]), len]);
}

export function rlp(item: RlpItem): Uint8Array {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) return item;
    return concat([lengthPrefix(item.length, 0x80), item]);
  }
  const body = concat(item.map(rlp));
  return concat([lengthPrefix(body.length, 0xc0), body]);
}

export interface Eip1559Fields {
  chainId: number;
  nonce: bigint;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  gas: bigint;
  /** 0x address. */
  to: string;
  value: bigint;
  data: Uint8Array;
}

export interface SignedTransaction {
  /** 0x-hex of the signed transaction, for eth_sendRawTransaction. */
  raw: string;
  /** 0x-hex transaction hash (lowercase). */
  hash: string;
  from: string;
}

function fieldList(tx: Eip1559Fields): RlpItem[] {
  const to = hexToBytes(tx.to.replace(/^0x/, "").toLowerCase());
  if (to.length !== 20) throw new Error("`to` must be a 20-byte address");
  return [bigEndian(BigInt(tx.chainId)), bigEndian(tx.nonce), bigEndian(tx.maxPriorityFeePerGas), bigEndian(tx.maxFeePerGas), bigEndian(tx.gas), to, bigEndian(tx.value), tx.data, []];
}

const TYPE_2 = new Uint8Array([0x02]);

export function signEip1559(tx: Eip1559Fields, secretKey: Uint8Array): SignedTransaction {
  const fields = fieldList(tx);
  const digest = keccak_256(concat([TYPE_2, rlp(fields)]));
  // The digest is already the hash to sign: no pre-hashing. Low-s is noble's default (EIP-2).
  const sig = secp.sign(digest, secretKey, { prehash: false, format: "recovered" });
  const yParity = sig[0]!;
  const r = BigInt(`0x${bytesToHex(sig.subarray(1, 33))}`);
  const s = BigInt(`0x${bytesToHex(sig.subarray(33, 65))}`);
  const signed = concat([TYPE_2, rlp([...fields, bigEndian(BigInt(yParity)), bigEndian(r), bigEndian(s)])]);
  return { raw: `0x${bytesToHex(signed)}`, hash: `0x${bytesToHex(keccak_256(signed))}`, from: addressOfSecretKey(secretKey) };
}
