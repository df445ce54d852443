/**
 * The EIP-712 documents a launch signs (docs/launches.md "Signatures"): a MintAuthorization a
 * minter contract can check before minting, and a CheckAttestation of a reserve check. Both are
 * hashed with viem's hashTypedData and signed raw (Signer.signDigest), so any EIP-712 library
 * (viem's recoverTypedDataAddress, ethers' verifyTypedData, a contract's ECDSA.recover) recovers
 * the service's signer from what the response carries: domain, types, primary_type, message.
 *
 * Domain: {name: "svc", version: "1", chainId, verifyingContract: the launch's token}. Before a
 * token is bound, an attestation's domain is {name, version} alone: it binds to no contract.
 */
import { hexToBytes } from "@noble/hashes/utils.js";
import { hashTypedData, type TypedDataDomain } from "viem";
import type { Signer } from "../../core/signer.ts";

export const MINT_AUTHORIZATION_TYPES = {
  MintAuthorization: [
    { name: "launch", type: "string" },
    { name: "to", type: "address" },
    { name: "amount", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

export const CHECK_ATTESTATION_TYPES = {
  CheckAttestation: [
    { name: "launch", type: "string" },
    { name: "seq", type: "uint256" },
    { name: "status", type: "string" },
    { name: "reserves", type: "uint256" },
    { name: "supply", type: "uint256" },
    { name: "checkedAt", type: "uint256" },
    { name: "evidence", type: "bytes32" },
    { name: "specDigest", type: "bytes32" },
  ],
} as const;

export const SUBSCRIPTION_AUTHORIZATION_TYPES = {
  SubscriptionAuthorization: [
    { name: "launch", type: "string" },
    { name: "subscriber", type: "address" },
    { name: "paymentToken", type: "address" },
    { name: "price", type: "uint256" },
    { name: "period", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

export interface Domain {
  name: "svc";
  version: "1";
  chainId?: number;
  verifyingContract?: string;
}

export const domainOf = (chainId: number | null, contract: string | null): Domain =>
  chainId !== null && contract !== null ? { name: "svc", version: "1", chainId, verifyingContract: contract } : { name: "svc", version: "1" };

type Types = typeof MINT_AUTHORIZATION_TYPES | typeof CHECK_ATTESTATION_TYPES | typeof SUBSCRIPTION_AUTHORIZATION_TYPES;

export interface SignedTypedData {
  domain: Domain;
  types: Record<string, { name: string; type: string }[]>;
  primary_type: string;
  /** uint256 values as decimal strings (JSON numbers would lose digits). */
  message: Record<string, string>;
  digest: string;
  signature: string;
  signer: string;
}

/** hashTypedData over `message` (its uint256 fields given as decimal strings), signed raw. */
export function signTypedData(signer: Signer, domain: Domain, types: Types, primaryType: string, message: Record<string, string>): SignedTypedData {
  const fields = (types as Record<string, readonly { name: string; type: string }[]>)[primaryType]!;
  const typed: Record<string, unknown> = {};
  for (const f of fields) typed[f.name] = f.type === "uint256" ? BigInt(message[f.name]!) : message[f.name];
  const digest = hashTypedData({ domain: domain as TypedDataDomain, types, primaryType, message: typed } as unknown as Parameters<typeof hashTypedData>[0]);
  return {
    domain,
    types: types as unknown as Record<string, { name: string; type: string }[]>,
    primary_type: primaryType,
    message,
    digest,
    signature: signer.signDigest(hexToBytes(digest.slice(2))),
    signer: signer.address,
  };
}

export const ZERO_BYTES32 = `0x${"0".repeat(64)}`;
export const bytes32 = (hex64: string): string => `0x${hex64.toLowerCase()}`;
