/**
 * /v1/vault session routes (spec §4.4 "Vault session routes exist…"; methods and bodies are
 * svc's design, docs/vault.md). Thin: each route validates, calls one service function and
 * shapes the answer. Envelopes per spec §2.1.
 *
 *   POST   /v1/vault/assets                                    {name, symbol?, description?, total_micro_usd}
 *   GET    /v1/vault/assets                                    {assets}
 *   GET    /v1/vault/assets/:id
 *   POST   /v1/vault/assets/:id/holders                        {name, email?, amount_micro_usd?, memo?}
 *   GET    /v1/vault/assets/:id/holders                        {holders, asset_id, total_micro_usd, pending_claims_micro_usd, issued_micro_usd}
 *   POST   /v1/vault/assets/:id/holders/:holder_id/issue       {amount_micro_usd, memo?}
 *   POST   /v1/vault/assets/:id/holders/:holder_id/claims      {expires_in_secs?} → claim + token (once)
 *   POST   /v1/vault/assets/:id/attesters                      {name, roles, wallet}
 *   GET    /v1/vault/assets/:id/attesters                      {attesters, asset_id, roles}
 *   POST   /v1/vault/assets/:id/attestations                   {attester_id, statement, signature}
 *   GET    /v1/vault/assets/:id/attestations                   {attestations, asset_id, trust_model}
 *   POST   /v1/vault/assets/:id/documents                      {name, content_type, content_b64}
 *   GET    /v1/vault/assets/:id/documents                      {documents, asset_id}
 *   GET    /v1/vault/assets/:id/documents/:doc_id              metadata + content_b64
 *   POST   /v1/vault/assets/:id/view-grants                    {scopes, label?, expires_in_secs?} → grant + token (once)
 *   GET    /v1/vault/assets/:id/view-grants                    {grants}
 *   DELETE /v1/vault/assets/:id/view-grants/:grant_id          revoke (idempotent)
 *   POST   /v1/vault/transfers                                 {asset_id, from_holder_id, to_holder_id, amount_micro_usd, memo?}
 *   GET    /v1/vault/transfers                                 ?asset_id= → {transfers} (at most 100)
 *   POST   /v1/vault/distributions                             {asset_id, amount_micro_usd, memo?}
 *   GET    /v1/vault/distributions                             ?asset_id= → {distributions} (at most 200)
 *   GET    /v1/vault/distributions/:id                         with its shares
 *   GET    /v1/vault/claims                                    {claims}
 */
import { Elysia } from "elysia";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { createAsset, getAsset, listAssets } from "./assets.ts";
import { addAttester, listAttesters, listAttestations, recordAttestation } from "./attestations.ts";
import { createClaim, listClaims } from "./claims.ts";
import { distribute, getDistribution, listDistributions } from "./distributions.ts";
import { addDocument, listDocuments, ownDocument } from "./documents.ts";
import { createGrant, listGrants, revokeGrant } from "./grants.ts";
import { addHolder, issue, listHolders } from "./holders.ts";
import * as M from "./models.ts";
import { listTransfers, transfer } from "./transfers.ts";

const tags = ["vault"];
const security = [{ session: [] }];
const doc = (summary: string, description?: string) => ({ detail: { summary, tags, security, ...(description ? { description } : {}) } });

export function vaultRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/vault" })
    .use(guards.session(ctx))
    .post(
      "/assets",
      ({ principal, body, set }) => {
        set.status = 201;
        return createAsset(ctx, principal.accountId, { name: body.name.trim(), symbol: body.symbol ?? null, description: body.description?.trim() ?? null, total: body.total_micro_usd });
      },
      { body: M.AssetBody, response: { 201: M.Asset }, ...doc("Register an off-chain asset with its declared size (total_micro_usd)") },
    )
    .get("/assets", ({ principal }) => namedList("assets", listAssets(ctx, principal.accountId)), {
      response: { 200: M.AssetList },
      ...doc("The account's vault assets, oldest first ({assets})"),
    })
    .get("/assets/:id", ({ principal, params }) => getAsset(ctx, principal.accountId, params.id), {
      params: M.AssetParams,
      response: { 200: M.Asset },
      ...doc("One asset: its size, what is issued, its holders count and chain head"),
    })
    .post(
      "/assets/:id/holders",
      ({ principal, params, body, set }) => {
        const { holder, issue: issued } = addHolder(ctx, principal.accountId, params.id, {
          name: body.name.trim(),
          email: body.email ?? null,
          amount: body.amount_micro_usd ?? null,
          memo: body.memo ?? null,
        });
        set.status = 201;
        return { ...holder, issue: issued };
      },
      {
        params: M.AssetParams,
        body: M.HolderBody,
        // 409 holder_exists (email taken in this asset), exceeds_supply (amount beyond the unissued size).
        response: { 201: M.HolderCreated, ...errors(409) },
        ...doc("Add a holder, optionally issuing to it at once (issue: the movement, or null)"),
      },
    )
    .get("/assets/:id/holders", ({ principal, params }) => listHolders(ctx, principal.accountId, params.id), {
      params: M.AssetParams,
      response: { 200: M.HolderList },
      ...doc("The asset's holders and positions ({holders, asset_id, total_micro_usd, pending_claims_micro_usd, issued_micro_usd})"),
    })
    .post(
      "/assets/:id/holders/:holder_id/issue",
      ({ principal, params, body, set }) => {
        set.status = 201;
        return issue(ctx, principal.accountId, params.id, params.holder_id, body.amount_micro_usd, body.memo ?? null);
      },
      {
        params: M.HolderParams,
        body: M.IssueBody,
        // 409 exceeds_supply: issued_micro_usd would pass total_micro_usd.
        response: { 201: M.Transfer, ...errors(409) },
        ...doc("Issue to a holder from the asset's unissued size (a movement of kind issue)"),
      },
    )
    .post(
      "/assets/:id/holders/:holder_id/claims",
      ({ principal, params, body, set }) => {
        set.status = 201;
        return createClaim(ctx, principal.accountId, params.id, params.holder_id, { expiresInSecs: body.expires_in_secs ?? null });
      },
      {
        params: M.HolderParams,
        body: M.ClaimBody,
        // 409 already_bound: the holder has bound a wallet.
        response: { 201: M.ClaimCreated, ...errors(409) },
        ...doc("Create a claim for a holder to bind a wallet; the token (for the holder) is returned once and supersedes the holder's open claim"),
      },
    )
    .post(
      "/assets/:id/attesters",
      ({ principal, params, body, set }) => {
        set.status = 201;
        return addAttester(ctx, principal.accountId, params.id, { name: body.name.trim(), roles: body.roles, wallet: body.wallet });
      },
      { params: M.AssetParams, body: M.AttesterBody, response: { 201: M.Attester }, ...doc("Register a third-party attester with its roles and the wallet it signs with") },
    )
    .get("/assets/:id/attesters", ({ principal, params }) => listAttesters(ctx, principal.accountId, params.id), {
      params: M.AssetParams,
      response: { 200: M.AttesterList },
      ...doc("The asset's attesters ({attesters, asset_id, roles}: roles is the vocabulary)"),
    })
    .post(
      "/assets/:id/attestations",
      ({ principal, params, body, set }) => {
        const { attestation, created } = recordAttestation(ctx, principal.accountId, params.id, { attesterId: body.attester_id, statement: body.statement, signature: body.signature });
        set.status = created ? 201 : 200;
        return attestation;
      },
      {
        params: M.AssetParams,
        body: M.AttestationBody,
        response: { 201: M.Attestation, 200: M.Attestation },
        ...doc(
          "Record an attester's signed statement (201; 200 when this signature is already recorded)",
          "The signature must recover to the attester's wallet over signed_message: `svc vault attestation\\nasset: <asset id>\\n\\n<statement>` (docs/vault.md).",
        ),
      },
    )
    .get("/assets/:id/attestations", ({ principal, params }) => listAttestations(ctx, principal.accountId, params.id), {
      params: M.AssetParams,
      response: { 200: M.AttestationList },
      ...doc("The asset's recorded statements ({attestations, asset_id, trust_model})"),
    })
    .post(
      "/assets/:id/documents",
      ({ principal, params, body, set }) => {
        set.status = 201;
        return addDocument(ctx, principal.accountId, params.id, { name: body.name.trim(), contentType: body.content_type, contentB64: body.content_b64 });
      },
      { params: M.AssetParams, body: M.DocumentBody, response: { 201: M.Document }, ...doc("Add a document (sealed at rest; at most 1 MiB)") },
    )
    .get("/assets/:id/documents", ({ principal, params }) => listDocuments(ctx, principal.accountId, params.id), {
      params: M.AssetParams,
      response: { 200: M.DocumentList },
      ...doc("The asset's documents, metadata only ({documents, asset_id})"),
    })
    .get("/assets/:id/documents/:doc_id", ({ principal, params }) => ownDocument(ctx, principal.accountId, params.id, params.doc_id), {
      params: M.DocumentParams,
      response: { 200: M.DocumentContent },
      ...doc("A document with its bytes (content_b64)"),
    })
    .post(
      "/assets/:id/view-grants",
      ({ principal, params, body, set }) => {
        set.status = 201;
        return createGrant(ctx, principal.accountId, params.id, { scopes: body.scopes, label: body.label?.trim() ?? null, expiresInSecs: body.expires_in_secs ?? null });
      },
      { params: M.AssetParams, body: M.GrantBody, response: { 201: M.GrantCreated }, ...doc("Create a view grant: a read-only token with scopes (returned once)") },
    )
    .get("/assets/:id/view-grants", ({ principal, params }) => namedList("grants", listGrants(ctx, principal.accountId, params.id)), {
      params: M.AssetParams,
      response: { 200: M.GrantList },
      ...doc("The asset's view grants, every status ({grants})"),
    })
    .delete("/assets/:id/view-grants/:grant_id", ({ principal, params }) => revokeGrant(ctx, principal.accountId, params.id, params.grant_id), {
      params: M.GrantParams,
      response: { 200: M.Grant },
      ...doc("Revoke a view grant now (idempotent)"),
    })
    .post(
      "/transfers",
      ({ principal, body, set }) => {
        set.status = 201;
        return transfer(ctx, principal.accountId, { assetId: body.asset_id, from: body.from_holder_id, to: body.to_holder_id, amount: body.amount_micro_usd, memo: body.memo ?? null });
      },
      {
        body: M.TransferBody,
        // 404 unknown asset or holder (another account's alike); 409 insufficient_position: the sender holds less than the amount (nothing moves).
        response: { 201: M.Transfer, ...errors(404, 409) },
        ...doc("Move a position between two holders of an asset; never below zero"),
      },
    )
    .get("/transfers", ({ principal, query }) => namedList("transfers", listTransfers(ctx, principal.accountId, query.asset_id ?? null)), {
      query: M.AssetFilter,
      // 404: asset_id names no asset of the account.
      response: { 200: M.TransferList, ...errors(404) },
      ...doc("Issues and transfers, newest first, at most 100 ({transfers})"),
    })
    .post(
      "/distributions",
      ({ principal, body, set }) => {
        set.status = 201;
        return distribute(ctx, principal.accountId, { assetId: body.asset_id, amount: body.amount_micro_usd, memo: body.memo ?? null });
      },
      {
        body: M.DistributionBody,
        // 404 unknown asset (another account's alike); 409 no_positions: no holder has a position.
        response: { 201: M.DistributionDetail, ...errors(404, 409) },
        ...doc("Record a distribution from the issuer to the holders, pro rata to positions (floor; the remainder stays with the issuer)"),
      },
    )
    .get("/distributions", ({ principal, query }) => namedList("distributions", listDistributions(ctx, principal.accountId, query.asset_id ?? null)), {
      query: M.AssetFilter,
      // 404: asset_id names no asset of the account.
      response: { 200: M.DistributionList, ...errors(404) },
      ...doc("Distributions, newest first, at most 200 ({distributions})"),
    })
    .get("/distributions/:id", ({ principal, params }) => getDistribution(ctx, principal.accountId, params.id), {
      params: M.AssetParams,
      response: { 200: M.DistributionDetail },
      ...doc("One distribution with each holder's share"),
    })
    .get("/claims", ({ principal }) => namedList("claims", listClaims(ctx, principal.accountId)), {
      response: { 200: M.ClaimList },
      ...doc("Claims of the account's assets, newest first ({claims})"),
    });
}
