/**
 * Batches (spec §4.3 "Files and batches"; docs/batches.md), API key with the "inference" scope.
 * Thin: each route validates, calls one service function and shapes the answer.
 *
 *   POST /v1/batches              {input_file_id, endpoint, completion_window, metadata?} → batch object
 *   GET  /v1/batches              list object with has_more, newest first, ?after&limit (at most 100)
 *   GET  /v1/batches/:id          batch object
 *   POST /v1/batches/:id/cancel   batch object (cancelling, then cancelled)
 */
import { Elysia } from "elysia";
import { listObject, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { BATCH_LIMIT, batchView, cancelBatch, createBatch, listBatches, ownBatch } from "./service.ts";

const tags = ["batches"];
const security = [{ apiKey: [] }];
const doc = (summary: string, description?: string) => ({ detail: { summary, tags, security, ...(description ? { description } : {}) } });

export function batchRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/batches" })
    .use(guards.apiKey(ctx, "inference"))
    .post("", ({ principal, body }) => createBatch(ctx, principal.accountId, principal.keyId, { ...body, metadata: body.metadata as Record<string, string> | null | undefined }), {
      body: M.CreateBody,
      response: { 200: M.Batch, ...errors(404, 409) },
      ...doc(
        "Run an uploaded file's lines through inference, each line metered and receipted under this key",
        "400 names the field (an input file whose line names another endpoint: the line); 404 for a file this account does not have; 409 file_in_use (a file feeds one batch), batch_limit_reached.",
      ),
    })
    .get(
      "",
      ({ principal, query }) => {
        const page = listBatches(ctx, principal.accountId, parseLimit(query.limit, BATCH_LIMIT), query.after);
        return { ...listObject(page.data), has_more: page.has_more };
      },
      { query: M.ListQuery, response: { 200: M.BatchList }, ...doc("The account's batches (list object with has_more), newest first, at most 100") },
    )
    .get("/:id", ({ principal, params }) => batchView(ownBatch(ctx, principal.accountId, params.id)), {
      params: M.BatchParams,
      response: { 200: M.Batch },
      ...doc("One batch: status, request_counts, output and error file ids"),
    })
    .post("/:id/cancel", ({ principal, params }) => cancelBatch(ctx, principal.accountId, params.id), {
      params: M.BatchParams,
      response: { 200: M.Batch, ...errors(409) },
      ...doc("Cancel a batch: lines in flight finish (billed, returned); no other line starts; no event fires", "409 batch_not_cancellable once it is finalizing or ended."),
    });
}
