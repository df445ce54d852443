/**
 * /v1/notary (spec §4.3 "Notary", API key with the "records" scope). Thin: each route
 * validates, calls one service function and shapes the answer. Rules: service.ts; docs:
 * docs/notary.md.
 *
 *   POST /v1/notary/receipts       {input_sha256, output_sha256, label?, occurred_at?} → 201, billed per receipt
 *   GET  /v1/notary/receipts       ?limit= → {receipts}, newest first
 *   GET  /v1/notary/receipts/:id   one (another account's answers 404)
 */
import { Elysia } from "elysia";
import { namedList, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { RECEIPTS_LIMIT } from "./limits.ts";
import * as M from "./models.ts";
import { getReceipt, listReceipts, registerReceipt } from "./service.ts";

const tags = ["notary"];
const security = [{ apiKey: [] }];

export function notaryRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/notary/receipts" })
    .use(guards.apiKey(ctx, "records"))
    .post(
      "",
      async ({ principal, body, set }) => {
        const receipt = await registerReceipt(ctx, { accountId: principal.accountId, keyId: principal.keyId }, body);
        set.status = 201;
        return receipt;
      },
      {
        body: M.CreateBody,
        // 402 credit or a spend cap (when a price is set).
        response: { 201: M.NotaryReceipt, ...errors(402) },
        detail: {
          summary: "Register the input and output fingerprints of work svc did not run: a signed receipt, billed per receipt (no idempotency key: two posts are two receipts)",
          tags,
          security,
        },
      },
    )
    .get("", ({ principal, query }) => namedList("receipts", listReceipts(ctx, principal.accountId, parseLimit(query.limit, RECEIPTS_LIMIT))), {
      query: M.ListQuery,
      response: { 200: M.NotaryReceiptList },
      detail: { summary: "The key's account's notary receipts, newest first ({receipts})", tags, security },
    })
    .get("/:id", ({ principal, params }) => getReceipt(ctx, principal.accountId, params.id), {
      params: M.Params,
      response: { 200: M.NotaryReceipt },
      detail: { summary: "One notary receipt (another account's answers 404)", tags, security },
    });
}
