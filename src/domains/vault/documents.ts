/**
 * Documents of an asset (a deed, an audit letter, a term sheet): bytes sealed at rest
 * (core/seal.ts, AAD bound to the asset and the document), readable by the owner and through a
 * view grant with the documents scope (grants.ts). The chain records that a document was added,
 * by id; its name, bytes and digest stay off the public log.
 */
import { isoTime } from "../../core/clock.ts";
import { invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { type AssetRow, ownAsset } from "./assets.ts";
import { appendEntry } from "./chain.ts";
import { MAX_DOCUMENT_BYTES } from "./limits.ts";

interface DocumentRow {
  id: string;
  asset_id: string;
  account_id: string;
  name: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  body_sealed: string;
  chain_seq: number;
  created_at: number;
}

const view = (d: DocumentRow) => ({
  id: d.id,
  asset_id: d.asset_id,
  name: d.name,
  content_type: d.content_type,
  size_bytes: d.size_bytes,
  sha256: d.sha256,
  chain_seq: d.chain_seq,
  created_at: isoTime(d.created_at),
});

export type DocumentView = ReturnType<typeof view>;

const aad = (d: { id: string; asset_id: string }) => JSON.stringify(["vault_documents", d.asset_id, d.id]);

/** Strict base64 (standard alphabet, padded), so two spellings never decode to the same bytes unnoticed. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function addDocument(ctx: Context, accountId: string, assetId: string, input: { name: string; contentType: string; contentB64: string }): DocumentView {
  if (!BASE64.test(input.contentB64)) throw invalidField("content_b64", "must be standard base64 with padding");
  const bytes = Buffer.from(input.contentB64, "base64");
  if (!bytes.length) throw invalidField("content_b64", "must not be empty");
  if (bytes.length > MAX_DOCUMENT_BYTES) throw invalidField("content_b64", `decodes to ${bytes.length} bytes; at most ${MAX_DOCUMENT_BYTES}`);
  return ctx.tx.run(() => {
    const asset = ownAsset(ctx, accountId, assetId);
    const id = newId("vdoc");
    const { seq } = appendEntry(ctx, asset.id, "document_added", { document_id: id });
    const row = ctx.db
      .query<DocumentRow, (string | number)[]>(
        `INSERT INTO vault_documents (id, asset_id, account_id, name, content_type, size_bytes, sha256, body_sealed, chain_seq, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(id, asset.id, accountId, input.name, input.contentType, bytes.length, sha256Hex(bytes), ctx.sealer.seal(bytes, aad({ id, asset_id: asset.id })), seq, ctx.clock.now())!;
    return view(row);
  });
}

/** Metadata of the asset's documents, oldest first, not capped (§8). */
export function documentsOf(ctx: Context, asset: AssetRow): DocumentView[] {
  return ctx.db.query<DocumentRow, [string]>("SELECT * FROM vault_documents WHERE asset_id = ? ORDER BY created_at, rowid").all(asset.id).map(view);
}

export function listDocuments(ctx: Context, accountId: string, assetId: string) {
  const asset = ownAsset(ctx, accountId, assetId);
  return { documents: documentsOf(ctx, asset), asset_id: asset.id };
}

/** A document with its bytes (base64), opened from the seal. 404 for another asset's document. */
export function documentContent(ctx: Context, asset: AssetRow, docId: string): DocumentView & { content_b64: string } {
  const row = ctx.db.query<DocumentRow, [string, string]>("SELECT * FROM vault_documents WHERE id = ? AND asset_id = ?").get(docId, asset.id);
  if (!row) throw notFound("vault document");
  return { ...view(row), content_b64: ctx.sealer.open(row.body_sealed, aad(row)).toString("base64") };
}

export const ownDocument = (ctx: Context, accountId: string, assetId: string, docId: string) => documentContent(ctx, ownAsset(ctx, accountId, assetId), docId);
