/**
 * /v1/vault public routes (spec §4.1 Vault): no credential, per-IP rate limited. What each one
 * shows is what its path's secret opens: an asset id opens the amount-free chain and its
 * anchors; a view token opens its grant's scopes; a claim token opens the claim (the asset's
 * name and the bound wallet, never an amount). Unknown, expired and revoked answer 404 alike.
 *
 *   GET  /v1/vault/chain/:id                     ?before_seq=&limit= → entries newest first, with canonical lines
 *   GET  /v1/vault/anchors/:id                   head (signed), newest anchored entry and its proof
 *   GET  /v1/vault/view/:token                   the asset and the grant's scopes
 *   GET  /v1/vault/view/:token/documents/:doc_id documents scope (403 insufficient_scope without it)
 *   GET  /v1/vault/claims/:token                 {asset_name, status, wallet, message, …}
 *   POST /v1/vault/claims/:token                 {wallet, signature} → binds the wallet
 */
import { Elysia } from "elysia";
import { parseLimit } from "../../core/envelopes.ts";
import { invalidField } from "../../core/errors.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { chainAnchors } from "./anchoring.ts";
import { publicChain } from "./chain.ts";
import { bindClaim, claimByTokenView } from "./claims.ts";
import { viewAsset, viewDocument } from "./grants.ts";
import { CHAIN_LIMIT } from "./limits.ts";
import * as M from "./models.ts";

const tags = ["vault"];

function beforeSeq(raw: string | undefined): number | null {
  if (raw === undefined || raw === "") return null;
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw invalidField("before_seq", "must be a whole number of at least 1");
  return Number(raw);
}

export function vaultPublicRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/vault" })
    .use(guards.public(ctx))
    .get("/chain/:id", ({ params, query }) => publicChain(ctx, params.id, beforeSeq(query.before_seq), parseLimit(query.limit, CHAIN_LIMIT)), {
      params: M.AssetParams,
      query: M.ChainQuery,
      response: { 200: M.ChainPage },
      detail: { summary: "An asset's append-only, hash-chained log: amount-free entries, newest first, each with the canonical line its hash was computed over", tags },
    })
    .get("/anchors/:id", ({ params }) => chainAnchors(ctx, params.id), {
      params: M.AssetParams,
      response: { 200: M.Anchors },
      detail: { summary: "Where an asset's chain is anchored: the head (signed now), the newest entry under a Merkle root with its inclusion proof and the root's anchors", tags },
    })
    .get("/view/:token", ({ params }) => viewAsset(ctx, params.token), {
      params: M.TokenParams,
      response: { 200: M.View },
      detail: { summary: "What a view grant opens: the asset, and each section its scopes include (null otherwise); 404 for an unknown, expired or revoked token", tags },
    })
    .get("/view/:token/documents/:doc_id", ({ params }) => viewDocument(ctx, params.token, params.doc_id), {
      params: M.ViewDocumentParams,
      // 403 insufficient_scope: a live token without the documents scope.
      response: { 200: M.DocumentContent, ...errors(403) },
      detail: { summary: "A document's bytes through a view grant with the documents scope (403 insufficient_scope without it)", tags },
    })
    .get("/claims/:token", ({ params }) => claimByTokenView(ctx, params.token), {
      params: M.TokenParams,
      response: { 200: M.PublicClaim },
      detail: { summary: "A claim as its holder sees it: the asset's name, the status, the bound wallet and the message to sign; never an amount", tags },
    })
    .post("/claims/:token", ({ params, body }) => bindClaim(ctx, params.token, { wallet: body.wallet, signature: body.signature }), {
      params: M.TokenParams,
      body: M.BindBody,
      // 409 already_bound, claim_expired, claim_superseded, wallet_taken.
      response: { 200: M.PublicClaim, ...errors(409) },
      detail: { summary: "Bind the wallet whose EIP-191 signature of the claim's message is given (once per claim)", tags },
    });
}
