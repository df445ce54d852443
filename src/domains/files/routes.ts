/**
 * Files (spec §4.3 "Files and batches"; docs/batches.md), API key with the "inference" scope.
 * Thin: each route validates, calls one service function and shapes the answer.
 *
 *   POST   /v1/files               multipart {file, purpose=batch, expires_after?} → file object
 *   GET    /v1/files               list object (no has_more), newest first, ?purpose&after&limit&order
 *   GET    /v1/files/:id           file object
 *   GET    /v1/files/:id/content   the JSONL (410 once destroyed: an input file after its batch ended)
 *   DELETE /v1/files/:id           {id, object, deleted}
 */
import { Elysia } from "elysia";
import { listObject, parseLimit } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { deleteFile, fileContent, fileView, listFiles, ownFile, uploadFile } from "./service.ts";

const tags = ["files"];
const security = [{ apiKey: [] }];
const doc = (summary: string, description?: string) => ({ detail: { summary, tags, security, ...(description ? { description } : {}) } });

export function fileRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/files" })
    .use(guards.apiKey(ctx, "inference"))
    .post(
      "",
      ({ principal, body }) =>
        uploadFile(ctx, principal.accountId, {
          file: body.file,
          purpose: body.purpose,
          expiresAfterSecs: body["expires_after[seconds]"],
          expiresAfterAnchor: body["expires_after[anchor]"],
        }),
      {
        body: M.UploadBody,
        parse: "multipart/form-data",
        response: { 200: M.FileObject, ...errors(409, 413) },
        ...doc(
          "Upload a JSONL file (multipart; purpose=batch), checked line by line and sealed at rest until it expires",
          "400 invalid_file names the first bad line (not JSON, duplicate custom_id, unsupported url or method, stream:true); 413 past files.max_bytes; 409 file_storage_full past the account's allowance.",
        ),
      },
    )
    .get("", ({ principal, query }) => listObject(listFiles(ctx, principal.accountId, { purpose: query.purpose, after: query.after, order: query.order ?? "desc", limit: parseLimit(query.limit, M.FILE_LIMIT) })), {
      query: M.ListQuery,
      response: { 200: M.FileList },
      ...doc("The account's files (list object), newest first, at most 200; after=<id> for the next page"),
    })
    .get("/:id", ({ principal, params }) => fileView(ownFile(ctx, principal.accountId, params.id)), {
      params: M.FileParams,
      response: { 200: M.FileObject },
      ...doc("One file (404 once it expired or was deleted)"),
    })
    .get("/:id/content", ({ principal, params }) => fileContent(ctx, principal.accountId, params.id), {
      params: M.FileParams,
      detail: { summary: "The file's JSONL (410 file_content_gone once its batch ended; 404 after it expired)", tags, security, responses: M.ContentResponses },
    })
    .delete("/:id", ({ principal, params }) => deleteFile(ctx, principal.accountId, params.id), {
      params: M.FileParams,
      response: { 200: M.Deleted, ...errors(409) },
      ...doc("Delete a file and its content now", "409 file_in_use while a batch runs on it (cancel the batch first)."),
    });
}
