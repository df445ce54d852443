/**
 * /v1/receipts/*: the signer and verification (public), the owner's receipts and sharing
 * (session), and what a shared receipt shows the world (public: JSON and an SVG badge).
 * Thin: each route is one call into service.ts / verify.ts / signers.ts (docs/receipts.md).
 *
 * Literal segments win over templates (spec §9.3): /pubkey, /verify and /shared/:id are
 * matched before /:id and /:id/share — Elysia's router prefers static segments, and
 * test/domains/receipts/receipts.test.ts holds it to that.
 */
import { Elysia, t } from "elysia";
import { parseLimit } from "../../core/envelopes.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { renderBadge } from "./badge.ts";
import * as M from "./models.ts";
import { getReceipt, getSharedReceipt, listReceipts, RECEIPTS_LIMIT, shareReceipt, sharedRow, unshareReceipt, verifyStored } from "./service.ts";
import { currentSigner, listSigners, signerView } from "./signers.ts";
import { verifyReceipt } from "./verify.ts";

const tags = ["receipts"];
const session = [{ session: [] }];

export function receiptRoutes(ctx: Context) {
  const open = new Elysia({ prefix: "/v1/receipts" })
    .use(guards.public(ctx))
    .get(
      "/pubkey",
      () => ({
        address: currentSigner(ctx.db)?.address ?? ctx.signer.address,
        scheme: "eip191-personal-sign" as const,
        algorithm: "secp256k1" as const,
        encoding: "base64url(canonical JSON)" as const,
        canonical_json: "object keys sorted ascending by Unicode code point, arrays in order, integers only, minimal string escaping, no whitespace",
        signers: listSigners(ctx.db).map(signerView),
      }),
      { response: { 200: M.Pubkey }, detail: { summary: "The receipt signer's address and scheme, with every past signer and its validity window", tags } },
    )
    .post(
      "/verify",
      ({ body }) => {
        // Any body: a wrong shape is an answer (valid:false with a reason), never a 400 or 500.
        const input = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
        if (!input) return { valid: false, reason: "body must be a JSON object {receipt, signature}", recovered_address: null, payload: null };
        return verifyReceipt(input.receipt, input.signature, listSigners(ctx.db));
      },
      {
        // Any JSON at all: the handler answers every shape itself.
        body: t.Unknown(),
        response: { 200: M.Verification },
        detail: {
          summary: "Verify a receipt (or any svc signed statement): {valid, recovered_address, payload}, with signer when valid and reason when not",
          tags,
          requestBody: M.VerifyRequestBody,
        },
      },
    )
    .get("/shared/:id", ({ params }) => getSharedReceipt(ctx, params.id), {
      params: M.Params,
      response: { 200: M.SharedReceipt },
      detail: { summary: "A receipt its owner shared (404 otherwise, the same as for an unknown id)", tags },
    })
    .get(
      "/:id/badge.svg",
      ({ params }) => {
        const row = sharedRow(ctx, params.id);
        const svg = renderBadge({ kind: row.kind, verified: verifyStored(ctx, row).valid, costMicroUsd: row.cost_micro_usd });
        return new Response(svg, {
          headers: {
            "content-type": "image/svg+xml; charset=utf-8",
            // Unsharing must take effect at once; and an SVG opened directly runs nothing.
            "cache-control": "no-cache",
            "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
            "x-content-type-options": "nosniff",
          },
        });
      },
      {
        params: M.Params,
        // Not JSON: the SVG's content type is declared here (a response schema would be documented as JSON or text/plain).
        detail: { summary: "SVG badge of a shared receipt: kind, verified, cost (404 when not shared)", tags, responses: M.badgeResponses() },
      },
    );

  const owned = new Elysia({ prefix: "/v1/receipts" })
    .use(guards.session(ctx))
    .get("", ({ principal, query }) => listReceipts(ctx, principal.accountId, { limit: parseLimit(query.limit, RECEIPTS_LIMIT), cursor: query.cursor, kind: query.kind }), {
      query: M.ListQuery,
      response: { 200: M.ReceiptPage },
      detail: { summary: "The account's receipts, newest first (paged by next_cursor)", tags, security: session },
    })
    .get("/:id", ({ principal, params }) => getReceipt(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.Receipt },
      detail: { summary: "One of the account's receipts, with its decoded payload and sharing state", tags, security: session },
    })
    .post("/:id/share", ({ principal, params }) => shareReceipt(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.Receipt },
      detail: { summary: "Share the receipt publicly (idempotent): returns share_url and badge_url", tags, security: session },
    })
    .delete("/:id/share", ({ principal, params }) => unshareReceipt(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.Receipt },
      detail: { summary: "Stop sharing the receipt (idempotent): its public URL and badge answer 404", tags, security: session },
    });

  return new Elysia().use(open).use(owned);
}
