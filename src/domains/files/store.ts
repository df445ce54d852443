/**
 * The files tables (migrations/0021_files.sql): rows and sealed lines. Only this area's code
 * names them; batches reads and writes lines through service.ts.
 */
import type { Context } from "../../context.ts";

export interface FileRow {
  id: string;
  account_id: string;
  purpose: string;
  filename: string;
  bytes: number;
  line_count: number;
  created_at: number;
  expires_at: number;
  content_purged_at: number | null;
  purge_reason: string | null;
}

const COLUMNS = "id, account_id, purpose, filename, bytes, line_count, created_at, expires_at, content_purged_at, purge_reason";

const lineAad = (fileId: string, lineNo: number): string => `file:${fileId}:line:${lineNo}`;

export function insertFileRow(ctx: Context, row: FileRow): void {
  ctx.db
    .query(`INSERT INTO files (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(row.id, row.account_id, row.purpose, row.filename, row.bytes, row.line_count, row.created_at, row.expires_at, row.content_purged_at, row.purge_reason);
}

/** Seals and stores lines (line numbers from `first`, 1-based). */
export function insertLines(ctx: Context, fileId: string, first: number, lines: string[]): void {
  const insert = ctx.db.prepare("INSERT INTO file_lines (file_id, line_no, bytes, sealed) VALUES (?, ?, ?, ?)");
  lines.forEach((text, i) => {
    const no = first + i;
    insert.run(fileId, no, Buffer.byteLength(text), ctx.sealer.seal(text, lineAad(fileId, no)));
  });
}

/** The account's file, unless it expired (a file past its expiry is gone, whether or not the purge job has run). */
export function liveFile(ctx: Context, accountId: string, id: string): FileRow | null {
  return ctx.db.query<FileRow, [string, string, number]>(`SELECT ${COLUMNS} FROM files WHERE id = ? AND account_id = ? AND expires_at > ?`).get(id, accountId, ctx.clock.now());
}

export function fileById(ctx: Context, id: string): FileRow | null {
  return ctx.db.query<FileRow, [string]>(`SELECT ${COLUMNS} FROM files WHERE id = ?`).get(id);
}

export interface ListQuery {
  purpose?: string;
  /** Rows after this file in the listing's order (the OpenAI cursor). */
  afterId?: string;
  limit: number;
  order: "asc" | "desc";
}

/** In creation order (seq: even within one millisecond), newest first unless asked otherwise. */
export function listFileRows(ctx: Context, accountId: string, q: ListQuery): FileRow[] {
  const where = ["account_id = ?", "expires_at > ?"];
  const args: (string | number)[] = [accountId, ctx.clock.now()];
  if (q.purpose) {
    where.push("purpose = ?");
    args.push(q.purpose);
  }
  if (q.afterId) {
    where.push(`seq ${q.order === "desc" ? "<" : ">"} (SELECT seq FROM files WHERE id = ?)`);
    args.push(q.afterId);
  }
  return ctx.db.query<FileRow, (string | number)[]>(`SELECT ${COLUMNS} FROM files WHERE ${where.join(" AND ")} ORDER BY seq ${q.order === "desc" ? "DESC" : "ASC"} LIMIT ?`).all(...args, q.limit);
}

/** Bytes of the account's live files whose content is still kept. */
export function storedBytes(ctx: Context, accountId: string): number {
  return ctx.db
    .query<{ n: number | null }, [string, number]>("SELECT sum(bytes) AS n FROM files WHERE account_id = ? AND expires_at > ? AND content_purged_at IS NULL")
    .get(accountId, ctx.clock.now())!.n ?? 0;
}

/** Lines from `from` (1-based, inclusive), at most `limit`, opened. */
export function readLines(ctx: Context, fileId: string, from: number, limit: number): { lineNo: number; text: string }[] {
  return ctx.db
    .query<{ line_no: number; sealed: string }, [string, number, number]>("SELECT line_no, sealed FROM file_lines WHERE file_id = ? AND line_no >= ? ORDER BY line_no LIMIT ?")
    .all(fileId, from, limit)
    .map((r) => ({ lineNo: r.line_no, text: ctx.sealer.openText(r.sealed, lineAad(fileId, r.line_no)) }));
}

/** Line count and size (newlines included) of the lines stored under `fileId`. */
export function lineTotals(ctx: Context, fileId: string): { lines: number; bytes: number } {
  const row = ctx.db.query<{ n: number; b: number | null }, [string]>("SELECT count(*) AS n, sum(bytes) AS b FROM file_lines WHERE file_id = ?").get(fileId)!;
  return { lines: row.n, bytes: (row.b ?? 0) + row.n };
}

export function deleteLines(ctx: Context, fileId: string): void {
  ctx.db.query("DELETE FROM file_lines WHERE file_id = ?").run(fileId);
}

export function markPurged(ctx: Context, fileId: string, reason: string): void {
  ctx.db.query("UPDATE files SET content_purged_at = ?, purge_reason = ? WHERE id = ? AND content_purged_at IS NULL").run(ctx.clock.now(), reason, fileId);
}

export function deleteFileRow(ctx: Context, fileId: string): void {
  ctx.db.query("DELETE FROM files WHERE id = ?").run(fileId);
}

/** Files past their expiry, oldest first. */
export function expiredFiles(ctx: Context, limit: number): Pick<FileRow, "id" | "purpose">[] {
  return ctx.db.query<Pick<FileRow, "id" | "purpose">, [number, number]>("SELECT id, purpose FROM files WHERE expires_at <= ? ORDER BY expires_at LIMIT ?").all(ctx.clock.now(), limit);
}
