/**
 * Files (spec §4.3 "Files and batches"): JSONL uploads for a purpose, sealed at rest line by
 * line, each with a hard expiry; and the output files other areas (batches) write line by line
 * and publish when they are done.
 *
 * The rules:
 * - A file past its expiry is gone at once: every route answers 404 for it, whether or not the
 *   purge job has deleted it yet.
 * - A file whose content was destroyed early (an input file once its batch ended) keeps its
 *   row until it expires: GET /v1/files/:id still answers, GET …/content answers 410
 *   file_content_gone with the reason.
 * - An account's live files (content still kept) may not exceed files.max_stored_bytes_per_account.
 */
import { unixSecs } from "../../core/clock.ts";
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Context } from "../../context.ts";
import { parseJsonl } from "./jsonl.ts";
import {
  deleteFileRow,
  deleteLines,
  expiredFiles,
  type FileRow,
  fileById,
  insertFileRow,
  insertLines,
  lineTotals,
  listFileRows,
  liveFile,
  markPurged,
  readLines,
  storedBytes,
} from "./store.ts";

const OUTPUT_PURPOSE = "batch_output";
const MIN_EXPIRY_SECS = 3600;

export interface FileView {
  id: string;
  object: "file";
  bytes: number;
  created_at: number;
  expires_at: number;
  filename: string;
  purpose: string;
  status: "processed";
  status_details: null;
  /** svc: whether GET …/content still answers (false once the content was destroyed early). */
  content_available: boolean;
  line_count: number;
}

export const fileView = (row: FileRow): FileView => ({
  id: row.id,
  object: "file",
  bytes: row.bytes,
  created_at: unixSecs(row.created_at),
  expires_at: unixSecs(row.expires_at),
  filename: row.filename,
  purpose: row.purpose,
  status: "processed",
  status_details: null,
  content_available: row.content_purged_at === null,
  line_count: row.line_count,
});

const fileNotFound = () => notFound("file");

/** The account's live file, or 404 (unknown, expired, deleted and other tenants' ids alike). */
export function ownFile(ctx: Context, accountId: string, id: string): FileRow {
  const row = liveFile(ctx, accountId, id);
  if (!row) throw fileNotFound();
  return row;
}

export interface UploadInput {
  file: unknown;
  purpose: unknown;
  /** expires_after[seconds] (OpenAI's field; anchor is always created_at). */
  expiresAfterSecs?: unknown;
  expiresAfterAnchor?: unknown;
}

function expirySecs(ctx: Context, input: UploadInput): number {
  const max = ctx.config.files.ttl_secs;
  if (input.expiresAfterAnchor !== undefined && input.expiresAfterAnchor !== "created_at") throw invalidField("expires_after.anchor", 'must be "created_at"');
  if (input.expiresAfterSecs === undefined) return max;
  const text = String(input.expiresAfterSecs);
  const n = /^\d{1,12}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < MIN_EXPIRY_SECS || n > max) throw invalidField("expires_after.seconds", `must be a whole number of seconds from ${MIN_EXPIRY_SECS} to ${max} (files.ttl_secs)`);
  return n;
}

/** POST /v1/files: checks the whole file against its purpose, then stores it sealed (one transaction). */
export async function uploadFile(ctx: Context, accountId: string, input: UploadInput): Promise<FileView> {
  if (typeof input.purpose !== "string" || input.purpose === "") throw invalidField("purpose", `is required: ${[...ctx.uploadPurposes.keys()].join(", ")}`);
  const purpose = ctx.uploadPurposes.get(input.purpose);
  if (!purpose) throw invalidField("purpose", `"${input.purpose}" is not accepted here; svc stores files for: ${[...ctx.uploadPurposes.keys()].join(", ")}`);
  if (!(input.file instanceof Blob)) throw invalidField("file", "is required: the JSONL file, as a multipart/form-data file part");
  const ttlSecs = expirySecs(ctx, input);
  const { max_bytes: maxBytes, max_lines: maxLines, max_stored_bytes_per_account: quota } = ctx.config.files;
  if (input.file.size > maxBytes) throw new ApiError(413, "payload_too_large", `file: ${input.file.size} bytes; at most ${maxBytes} are accepted (files.max_bytes)`, { param: "file", limit_bytes: maxBytes });
  const name = input.file instanceof File && input.file.name ? input.file.name : "upload.jsonl";
  if (name.length > 255) throw invalidField("file", "its filename is longer than 255 characters");
  const parsed = parseJsonl(new Uint8Array(await input.file.arrayBuffer()), {
    maxLines,
    json: { maxDepth: ctx.config.max_json_depth, maxElements: ctx.config.max_json_elements },
    checker: purpose.checker(),
  });
  const now = ctx.clock.now();
  const row: FileRow = {
    id: newId("file"),
    account_id: accountId,
    purpose: input.purpose,
    filename: name,
    bytes: parsed.bytes,
    line_count: parsed.lines.length,
    created_at: now,
    expires_at: now + ttlSecs * 1000,
    content_purged_at: null,
    purge_reason: null,
  };
  ctx.tx.run(() => {
    const used = storedBytes(ctx, accountId);
    if (used + row.bytes > quota) {
      throw new ApiError(409, "file_storage_full", `this account holds ${used} bytes of files; ${row.bytes} more would pass its ${quota}-byte allowance (delete files, or wait for them to expire)`, {
        stored_bytes: used,
        limit_bytes: quota,
      });
    }
    insertFileRow(ctx, row);
    insertLines(ctx, row.id, 1, parsed.lines);
  });
  return fileView(row);
}

export interface ListInput {
  purpose?: string;
  after?: string;
  limit: number;
  order: "asc" | "desc";
}

/** GET /v1/files: newest first by default; `after` continues from a file id of the previous page. */
export function listFiles(ctx: Context, accountId: string, q: ListInput): FileView[] {
  const after = q.after ? liveFile(ctx, accountId, q.after) : undefined;
  if (q.after && !after) throw invalidField("query.after", "names no file of this account (it may have expired)");
  return listFileRows(ctx, accountId, { purpose: q.purpose, afterId: after?.id, limit: q.limit, order: q.order }).map(fileView);
}

/** DELETE /v1/files/:id: the row and its lines, at once. A file a running batch reads is 409 file_in_use. */
export function deleteFile(ctx: Context, accountId: string, id: string): { id: string; object: "file"; deleted: true } {
  const row = ownFile(ctx, accountId, id);
  const busy = ctx.uploadPurposes.get(row.purpose)?.inUse?.(row.id);
  if (busy) throw new ApiError(409, "file_in_use", `file ${row.id} ${busy}`);
  ctx.tx.run(() => {
    deleteLines(ctx, row.id);
    deleteFileRow(ctx, row.id);
  });
  return { id: row.id, object: "file", deleted: true };
}

const PAGE_LINES = 500;

/** GET /v1/files/:id/content: the JSONL, streamed a page of lines at a time. 410 once the content was destroyed. */
export function fileContent(ctx: Context, accountId: string, id: string): Response {
  const row = ownFile(ctx, accountId, id);
  if (row.content_purged_at !== null) {
    throw new ApiError(410, "file_content_gone", `file ${row.id}'s content was destroyed when its batch ended (${row.purge_reason ?? "purged"}); the file record stays until it expires`, {
      reason: row.purge_reason,
    });
  }
  let next = 1;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      // Deleted, expired or destroyed mid-download: an error, not a short 200.
      const now = fileById(ctx, row.id);
      if (!now || now.expires_at <= ctx.clock.now() || now.content_purged_at !== null) return controller.error(new Error(`file ${row.id} went away during the download`));
      const page = readLines(ctx, row.id, next, PAGE_LINES);
      if (!page.length) return controller.close();
      next = page[page.length - 1]!.lineNo + 1;
      controller.enqueue(encoder.encode(page.map((l) => `${l.text}\n`).join("")));
    },
  });
  return new Response(body, { headers: { "content-type": "application/jsonl; charset=utf-8", "content-disposition": `attachment; filename="${row.id}.jsonl"` } });
}

// ---- For the areas that consume files (batches) ----

/** The account's live file for `purpose`, with its content; 400 naming `param` otherwise (404 for an unknown id). */
export function inputFile(ctx: Context, accountId: string, id: string, purpose: string, param: string): FileRow {
  const row = ownFile(ctx, accountId, id);
  if (row.purpose !== purpose) throw invalidField(param, `file ${row.id} was uploaded with purpose "${row.purpose}", not "${purpose}"`);
  if (row.content_purged_at !== null) throw invalidField(param, `file ${row.id}'s content was already destroyed (${row.purge_reason ?? "purged"})`);
  return row;
}

/** Lines of a stored file from `from` (1-based), at most `limit`. */
export const fileLines = (ctx: Context, fileId: string, from: number, limit: number): { lineNo: number; text: string }[] => readLines(ctx, fileId, from, limit);

/** Stores one line of an output file not yet published (inside the caller's transaction). */
export const writeOutputLine = (ctx: Context, fileId: string, lineNo: number, text: string): void => insertLines(ctx, fileId, lineNo, [text]);

/**
 * Publishes the lines written under `id` as a file of the account (purpose batch_output), living
 * files.output_ttl_secs. Returns false (and creates nothing) when no line was written.
 */
export function publishOutputFile(ctx: Context, input: { id: string; accountId: string; filename: string }): boolean {
  if (fileById(ctx, input.id)) return true;
  const totals = lineTotals(ctx, input.id);
  if (!totals.lines) return false;
  const now = ctx.clock.now();
  insertFileRow(ctx, {
    id: input.id,
    account_id: input.accountId,
    purpose: OUTPUT_PURPOSE,
    filename: input.filename,
    bytes: totals.bytes,
    line_count: totals.lines,
    created_at: now,
    expires_at: now + ctx.config.files.output_ttl_secs * 1000,
    content_purged_at: null,
    purge_reason: null,
  });
  return true;
}

/** Destroys a file's content now (its row stays until it expires; …/content then answers 410). */
export function purgeFileContent(ctx: Context, fileId: string, reason: string): void {
  deleteLines(ctx, fileId);
  markPurged(ctx, fileId, reason);
}

/**
 * The purge job: files past their expiry, row and lines, a bounded number per run. A file a
 * running batch still reads is left to it (the routes already answer 404 for it); its content
 * goes when the batch ends, and its row on the next run after that.
 */
export function purgeExpiredFiles(ctx: Context, limit = 200): number {
  let purged = 0;
  for (const row of expiredFiles(ctx, limit)) {
    if (ctx.uploadPurposes.get(row.purpose)?.inUse?.(row.id)) continue;
    ctx.tx.run(() => {
      deleteLines(ctx, row.id);
      deleteFileRow(ctx, row.id);
    });
    purged++;
  }
  return purged;
}
