/**
 * /v1/support (spec §4.1: public, no credential; each client rate limited by the public guard).
 * Thin: each route validates, calls one service function and shapes the answer. Rules:
 * nonces.ts and claims.ts; docs: docs/support.md.
 *
 *   POST /v1/support/nonce              → 201 {nonce, message, issued_at, expires_at}
 *   POST /v1/support/claims             {nonce, ed25519_public_key, ed25519_signature, evm_address, evm_signature, chain, tx_hash} → 201
 *   GET  /v1/support/claims/:address    {id, status, date, address (masked)}
 */
import { Elysia } from "elysia";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { lookupClaim, registerClaim } from "./claims.ts";
import * as M from "./models.ts";
import { mintNonce } from "./nonces.ts";

const tags = ["support"];

export function supportRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/support" })
    .use(guards.public(ctx))
    .post(
      "/nonce",
      ({ set }) => {
        const nonce = mintNonce(ctx);
        set.status = 201;
        return nonce;
      },
      {
        response: { 201: M.Nonce, ...errors(501) },
        detail: { summary: "A single-use nonce and the exact message both wallets of a support claim sign", tags },
      },
    )
    .post(
      "/claims",
      async ({ body, set }) => {
        const claim = await registerClaim(ctx, {
          nonce: body.nonce,
          evmAddress: body.evm_address,
          ed25519PublicKey: body.ed25519_public_key,
          ed25519Signature: body.ed25519_signature,
          evmSignature: body.evm_signature,
          chain: body.chain,
          txHash: body.tx_hash,
        });
        set.status = 201;
        return claim;
      },
      {
        body: M.ClaimBody,
        // 400 invalid_nonce, invalid_signature, transaction_failed; 404 transaction_not_found; 409 nonce_used,
        // already_claimed, transaction_already_used, transaction_not_finalized, transaction_not_mined; 422
        // transaction_not_from_address; 501 no chain; 502 wrong_chain; 503 chain_unavailable.
        response: { 201: M.Claim, ...errors(404, 409, 422, 501, 502, 503) },
        detail: {
          summary: "Register a support claim: an ed25519 and an EIP-191 signature of one nonce's message, and a finalized transaction from the EVM address",
          description: "Registration only; the nonce is spent by the claim. See docs/support.md.",
          tags,
        },
      },
    )
    .get("/claims/:address", ({ params }) => lookupClaim(ctx, params.address), {
      params: M.AddressParams,
      response: { 200: M.Claim },
      detail: { summary: "The support claim of an EVM address: id, status, date and the address masked (404 when there is none)", tags },
    });
}
