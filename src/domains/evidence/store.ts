/** evidence_retrievals: the evidence area's one table (migrations/0040_evidence.sql). */
import type { Context } from "../../context.ts";

export interface RetrievalRow {
  id: string;
  account_id: string;
  source_kind: string;
  source_ref: string;
  label: string | null;
  retrieved_at: number;
  content_sha256: string;
  content_type: string;
  size_bytes: number;
  body_sealed: string | null;
}

export const bodyAad = (id: string) => `evidence-body:${id}`;

export function insertRetrieval(ctx: Context, row: RetrievalRow): void {
  ctx.db
    .query(
      `INSERT INTO evidence_retrievals (id, account_id, source_kind, source_ref, label, retrieved_at, content_sha256, content_type, size_bytes, body_sealed)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(row.id, row.account_id, row.source_kind, row.source_ref, row.label, row.retrieved_at, row.content_sha256, row.content_type, row.size_bytes, row.body_sealed);
}

export const retrievalRow = (ctx: Context, accountId: string, id: string): RetrievalRow | null =>
  ctx.db.query<RetrievalRow, [string, string]>("SELECT * FROM evidence_retrievals WHERE id = ? AND account_id = ?").get(id, accountId);

/** Forgets the bytes (the reference and its fingerprint stay): a record's retention ended. */
export function dropBodies(ctx: Context, accountId: string, ids: string[]): void {
  const drop = ctx.db.query("UPDATE evidence_retrievals SET body_sealed = NULL WHERE id = ? AND account_id = ?");
  for (const id of ids) drop.run(id, accountId);
}

/** Drops the bytes of up to `limit` retrievals made before `before` (oldest first); returns how many. */
export const dropBodiesBefore = (ctx: Context, before: number, limit: number): number =>
  ctx.db
    .query(
      `UPDATE evidence_retrievals SET body_sealed = NULL WHERE id IN (
         SELECT id FROM evidence_retrievals WHERE retrieved_at < ? AND body_sealed IS NOT NULL ORDER BY retrieved_at LIMIT ?)`,
    )
    .run(before, limit).changes;
