/**
 * /v1/escrow (spec §4.4 "Escrow", session). Thin: each route validates, calls one service
 * function and shapes the answer. Rules: claims.ts and inputs.ts; docs: docs/payments.md
 * "Escrow claims".
 *
 *   POST /v1/escrow/claims              {receipt, signature} → 201 (200 when already prepared)
 *   GET  /v1/escrow/claims              ?limit= → {claims}
 *   GET  /v1/escrow/claims/:request_id
 */
import { Elysia } from "elysia";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { getClaim, listClaims, prepareClaim } from "./claims.ts";
import { CLAIMS_LIMIT } from "./limits.ts";
import * as M from "./models.ts";

const tags = ["escrow"];
const security = [{ session: [] }];

export function escrowRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/escrow/claims" })
    .use(guards.session(ctx))
    .post(
      "",
      ({ principal, body, set }) => {
        const { claim, created } = prepareClaim(ctx, principal.accountId, body);
        set.status = created ? 201 : 200;
        return claim;
      },
      {
        body: M.CreateBody,
        // 403 receipt_of_another_account; 422 receipt_not_verified, not_a_receipt.
        response: { 201: M.Claim, 200: M.Claim, ...errors(422) },
        detail: {
          summary: "Prepare escrow claim inputs from one of the account's signed receipts (claimable:true states only signature recovery and payload binding)",
          description: "Idempotent per receipt: preparing it again answers 200 with the same claim. See docs/payments.md.",
          tags,
          security,
        },
      },
    )
    .get("", ({ principal, query }) => namedList("claims", listClaims(ctx, principal.accountId, parseLimit(query.limit, CLAIMS_LIMIT))), {
      query: M.ListQuery,
      response: { 200: M.ClaimList },
      detail: { summary: "The account's escrow claims, newest first ({claims})", tags, security },
    })
    .get("/:request_id", ({ principal, params }) => getClaim(ctx, principal.accountId, params.request_id), {
      params: M.Params,
      response: { 200: M.Claim },
      detail: { summary: "One escrow claim by its request_id (the receipt's id); another account's answers 404", tags, security },
    });
}
