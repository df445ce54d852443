/**
 * The COSE_Sign1 signature of a C2PA claim (C2PA 2.x §13.2, RFC 9052 §4.2), built here because
 * the C2PA library's WebAssembly build hands its signer callback the claim and expects the whole
 * COSE structure back ("direct COSE handling"): the library has no way to take our certificate
 * chain. CBOR encoding is cborg's; what is ours is the layout the C2PA specification fixes:
 *
 *   COSE_Sign1_Tagged = 18([ protected: bstr .cbor {1: alg, 33: x5chain}, unprotected: {"pad": bstr},
 *                            payload: nil (detached: the claim), signature: bstr ])
 *
 * signed over Sig_structure ["Signature1", protected, h'', claim], and padded with zero bytes so
 * the result fills exactly the space the library reserved for it (the manifest's layout, and so
 * the asset's hash binding, was fixed before signing).
 */
import { encode } from "cborg";

/** COSE algorithm ids (RFC 9053): the two C2PA algorithms svc signs with. */
export const COSE_ALG = { es256: -7, ed25519: -8 } as const;
export type CoseAlg = keyof typeof COSE_ALG;

const X5CHAIN = 33;
const SIGN1_TAG = 0xd2; // CBOR tag 18, one byte

export interface ClaimSigner {
  alg: CoseAlg;
  /** DER certificates, the signer's first. */
  chain: Uint8Array[];
  /** Signs the bytes: ES256 as IEEE P1363 r‖s (64 bytes), Ed25519 as its 64-byte signature. */
  sign(bytes: Uint8Array): Promise<Uint8Array>;
}

function tagged(items: unknown[]): Uint8Array {
  const body = encode(items);
  const out = new Uint8Array(body.length + 1);
  out[0] = SIGN1_TAG;
  out.set(body, 1);
  return out;
}

/** The COSE_Sign1 of `claim`, exactly `size` bytes long (throws when it cannot fit). */
export async function signClaim(signer: ClaimSigner, claim: Uint8Array, size: number): Promise<Uint8Array> {
  const protectedHeader = encode(new Map<number, unknown>([[1, COSE_ALG[signer.alg]], [X5CHAIN, signer.chain.length === 1 ? signer.chain[0] : signer.chain]]));
  const toBeSigned = encode(["Signature1", protectedHeader, new Uint8Array(0), claim]);
  const signature = await signer.sign(toBeSigned);
  const build = (pad: number) => tagged([protectedHeader, new Map([["pad", new Uint8Array(pad)]]), null, signature]);
  const bare = build(0).length;
  if (bare > size) throw new Error(`the C2PA signature needs ${bare} bytes; only ${size} were reserved`);
  // The pad's length prefix grows at 24 and 256 bytes, so step down until the total fits exactly.
  for (let pad = size - bare; pad >= 0; pad--) {
    const out = build(pad);
    if (out.length === size) return out;
  }
  throw new Error(`the C2PA signature cannot be padded to exactly ${size} bytes`);
}

/** Room for the signature: the chain, the algorithm's signature and CBOR framing, rounded up. */
export function reserveFor(chain: Uint8Array[]): number {
  const certs = chain.reduce((n, c) => n + c.length + 5, 0);
  return Math.ceil((certs + 512) / 1024) * 1024;
}
