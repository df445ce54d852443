/**
 * POST /v1/support/claims and GET /v1/support/claims/:address (docs/support.md). A claim
 * registers two wallets as one supporter: an ed25519 key and an EVM address that both signed the
 * same nonce message, and a FINALIZED transaction on a configured chain that moved the chain's
 * USDT out of the EVM address (a Transfer log from it), with at least the chain's required
 * confirmations. Registration only: nothing is paid, credited or granted.
 *
 * Everything cheap is checked before the chain is asked (the nonce, both signatures, an address or
 * key already registered); the nonce is spent, and the address, key and transaction re-checked,
 * inside the write transaction that inserts the claim, so of two claims racing on one nonce one
 * wins. A refused claim leaves the nonce usable until it expires.
 */
import { createPublicKey, verify } from "node:crypto";
import { isoTime } from "../../core/clock.ts";
import { recoverMessageAddress } from "../../core/eip191.ts";
import { ApiError, badRequest, conflict, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { chainNamed, inspectTransaction, normalizeTxHash } from "../billing/index.ts";
import { requireChains } from "./nonces.ts";
import * as S from "./store.ts";
import type { ClaimRow } from "./store.ts";

export interface ClaimInput {
  nonce: string;
  evmAddress: string;
  ed25519PublicKey: string;
  ed25519Signature: string;
  evmSignature: string;
  chain: string;
  txHash: string;
}

/** 0x12ab…cd34: enough to recognise one's own address, not enough to read it off a public page. */
export const maskAddress = (address: string): string => `${address.slice(0, 6)}…${address.slice(-4)}`;

export const claimView = (row: ClaimRow) => ({ id: row.id, status: row.status, date: isoTime(row.created_at), address: maskAddress(row.evm_address) });

function ed25519Valid(publicKeyHex: string, message: string, signatureHex: string): boolean {
  let key;
  try {
    key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKeyHex, "hex").toString("base64url") }, format: "jwk" });
  } catch {
    throw invalidField("ed25519_public_key", "is not an ed25519 public key");
  }
  return verify(null, Buffer.from(message, "utf8"), key, Buffer.from(signatureHex, "hex"));
}

function evmSigner(message: string, signature: string): string | null {
  try {
    return recoverMessageAddress(message, signature).toLowerCase();
  } catch {
    return null;
  }
}

/** The nonce as it stands now: unknown and expired are one refusal; used is a conflict. */
function liveNonce(ctx: Context, nonce: string): S.NonceRow {
  const row = S.nonceOf(ctx, nonce);
  if (!row || row.expires_at < ctx.clock.now()) throw badRequest("invalid_nonce", "the nonce is unknown or has expired; get a new one (POST /v1/support/nonce) and sign its message", { param: "nonce" });
  if (row.used_at !== null) throw conflict("nonce_used", "the nonce has already been used by a claim; each nonce registers one claim");
  return row;
}

function notRegistered(ctx: Context, evmAddress: string, publicKey: string): void {
  if (S.claimByAddress(ctx, evmAddress)) throw conflict("already_claimed", "this EVM address is already registered in the support program");
  if (S.claimByKey(ctx, publicKey)) throw conflict("already_claimed", "this ed25519 key is already registered in the support program");
}

const usedTransaction = (txHash: string): ApiError => conflict("transaction_already_used", `transaction ${txHash} already backs another claim; each transaction backs one`);

export async function registerClaim(ctx: Context, input: ClaimInput) {
  requireChains(ctx);
  const evmAddress = input.evmAddress.toLowerCase();
  const publicKey = input.ed25519PublicKey.toLowerCase();
  const nonce = liveNonce(ctx, input.nonce);
  if (!ed25519Valid(publicKey, nonce.message, input.ed25519Signature)) {
    throw badRequest("invalid_signature", "ed25519_signature is not the ed25519 key's signature of the nonce's message (sign the message's UTF-8 bytes exactly)", { param: "ed25519_signature" });
  }
  if (evmSigner(nonce.message, input.evmSignature) !== evmAddress) {
    throw badRequest("invalid_signature", "evm_signature is not evm_address's EIP-191 (personal_sign) signature of the nonce's message", { param: "evm_signature" });
  }
  notRegistered(ctx, evmAddress, publicKey);

  const chain = chainNamed(ctx.config, input.chain);
  const txHash = normalizeTxHash(input.txHash);
  if (S.claimByTransaction(ctx, chain.chain_id, txHash)) throw usedTransaction(txHash);
  const inspection = await inspectTransaction(chain, txHash);
  const token = chain.usdt.toLowerCase();
  if (!inspection.transfers.some((t) => t.token === token && t.from === evmAddress && t.value > 0n)) {
    throw new ApiError(422, "transaction_not_from_address", `transaction ${txHash} moves none of chain "${chain.name}"'s USDT out of evm_address; the claim needs a transaction of the EVM wallet's own (docs/support.md)`, { param: "tx_hash" });
  }
  if (inspection.confirmations < chain.confirmations) {
    throw new ApiError(409, "transaction_not_finalized", `transaction ${txHash} has ${inspection.confirmations} of the ${chain.confirmations} confirmations chain "${chain.name}" requires; claim again once it has them`, {
      confirmations: inspection.confirmations,
      required_confirmations: chain.confirmations,
    });
  }

  return ctx.tx.run(() => {
    const now = ctx.clock.now();
    const current = liveNonce(ctx, input.nonce);
    notRegistered(ctx, evmAddress, publicKey);
    if (S.claimByTransaction(ctx, chain.chain_id, txHash)) throw usedTransaction(txHash);
    if (!S.useNonce(ctx, current.nonce, now)) throw conflict("nonce_used", "the nonce has already been used by a claim; each nonce registers one claim");
    const row: ClaimRow = {
      id: newId("supc"),
      evm_address: evmAddress,
      ed25519_public_key: publicKey,
      nonce: current.nonce,
      chain: chain.name,
      chain_id: chain.chain_id,
      tx_hash: txHash,
      block_number: inspection.blockNumber,
      status: "registered",
      created_at: now,
    };
    S.insertClaim(ctx, row);
    return claimView(row);
  });
}

export function lookupClaim(ctx: Context, address: string) {
  const row = S.claimByAddress(ctx, address.toLowerCase());
  if (!row) throw notFound("support claim");
  return claimView(row);
}
