/**
 * Documents: upsertDocument chunks the text, asks the caller's embedder for one vector per chunk,
 * then replaces the document's chunks, vectors and keyword rows in ONE transaction, so a search
 * sees the old version or the new one, never a mix. The embedder runs first and outside the
 * transaction (bun:sqlite transactions are synchronous, and an embedding call is slow).
 */
import type { Database } from "bun:sqlite";
import { invalidField } from "../../../core/errors.ts";
import { chunkText } from "./chunker.ts";
import { adjustTotals, deleteChunkRows, type Collection } from "./collections.ts";
import { collectionNotFound, dimensionMismatch, documentNotFound, embedderMismatch, invalidVector } from "./errors.ts";
import { insertKeywordRow } from "./keyword-index.ts";
import { checkMetadata, type Metadata } from "./metadata-filter.ts";
import { embeddingBlob, insertVector, normalised } from "./vector-index.ts";

/** Seals and opens chunk text; core/seal.ts's Sealer is one. */
export interface TextSealer {
  seal(plaintext: string, aad: string): string;
  openText(sealed: string, aad: string): string;
}

export type Embedder = (chunks: string[]) => Promise<ArrayLike<number>[]> | ArrayLike<number>[];

export interface DocumentInput {
  docId: string;
  text: string;
  metadata?: Metadata;
}

export interface UpsertResult {
  document_id: string;
  chunks: number;
  tokens: number;
}

export const MAX_DOC_ID_CHARS = 256;
/** A document cut into more chunks than this is refused before anything is embedded. */
export const MAX_CHUNKS_PER_DOCUMENT = 10_000;

/** Binds sealed chunk text to its place, so sealed text copied to another chunk or collection fails to open. */
export const chunkAad = (collectionId: string, docId: string, ordinal: number): string => `memory_chunk:${collectionId}:${docId}:${ordinal}`;

export async function upsertDocument(
  db: Database,
  collection: Collection,
  input: DocumentInput,
  embed: Embedder,
  options: { sealer?: TextSealer; now?: number } = {},
): Promise<UpsertResult> {
  const { docId, text } = input;
  if (typeof docId !== "string" || !docId || docId.length > MAX_DOC_ID_CHARS) throw invalidField("document_id", `must be 1-${MAX_DOC_ID_CHARS} characters`);
  if (typeof text !== "string") throw invalidField("text", "must be a string");
  const metadata = checkMetadata(input.metadata);
  if (collection.sealText && !options.sealer) throw new Error("this collection seals chunk text: pass a sealer");

  const chunks = chunkText(text, { chunkSize: collection.chunkSize, overlap: collection.chunkOverlap });
  if (chunks.length > MAX_CHUNKS_PER_DOCUMENT) throw invalidField("text", `cuts into ${chunks.length} chunks; at most ${MAX_CHUNKS_PER_DOCUMENT} per document`);
  const vectors = chunks.length ? await embed(chunks.map((c) => c.text)) : [];
  if (vectors.length !== chunks.length) throw embedderMismatch(chunks.length, vectors.length);
  const units = vectors.map((v, i) => {
    if (v.length !== collection.dimension) throw dimensionMismatch(`embeddings[${i}]`, collection.dimension, v.length);
    const unit = normalised(v);
    if (!unit) throw invalidVector(`embeddings[${i}]`, "must be finite numbers, not all zero");
    return unit;
  });
  const stored = chunks.map((c) => (collection.sealText ? options.sealer!.seal(c.text, chunkAad(collection.id, docId, c.index)) : c.text));
  const tokens = chunks.reduce((sum, c) => sum + c.tokens, 0);
  const now = options.now ?? Date.now();

  db.transaction(() => {
    // The collection may have been deleted while the embedder ran.
    if (!db.query("SELECT 1 FROM memory_collections WHERE key = ?").get(collection.key)) throw collectionNotFound();
    const existing = db
      .query<{ key: number; chunk_count: number; token_count: number; text_bytes: number }, [number, string]>(
        "SELECT key, chunk_count, token_count, text_bytes FROM memory_documents WHERE collection_key = ? AND doc_id = ?",
      )
      .get(collection.key, docId);
    const textBytes = Buffer.byteLength(text);
    adjustTotals(db, collection.key, {
      documents: existing ? 0 : 1,
      chunks: chunks.length - (existing?.chunk_count ?? 0),
      tokens: tokens - (existing?.token_count ?? 0),
      text_bytes: textBytes - (existing?.text_bytes ?? 0),
    });
    let documentKey: number;
    if (existing) {
      deleteChunkRows(db, collection, "document_key", existing.key);
      db.query("UPDATE memory_documents SET metadata = ?, chunk_count = ?, token_count = ?, text_bytes = ?, updated_at = ? WHERE key = ?").run(
        JSON.stringify(metadata),
        chunks.length,
        tokens,
        textBytes,
        now,
        existing.key,
      );
      documentKey = existing.key;
    } else {
      documentKey = db
        .query<{ key: number }, [number, string, string, number, number, number, number, number]>(
          `INSERT INTO memory_documents (collection_key, doc_id, metadata, chunk_count, token_count, text_bytes, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING key`,
        )
        .get(collection.key, docId, JSON.stringify(metadata), chunks.length, tokens, textBytes, now, now)!.key;
    }
    const insertChunk = db.query<{ id: number }, [number, number, number, string, number, Uint8Array]>(
      "INSERT INTO memory_chunks (collection_key, document_key, ordinal, text, token_count, embedding) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
    );
    chunks.forEach((chunk, i) => {
      const id = insertChunk.get(collection.key, documentKey, chunk.index, stored[i]!, chunk.tokens, embeddingBlob(units[i]!))!.id;
      insertVector(db, collection.dimension, id, collection.key, units[i]!);
      if (!collection.sealText) insertKeywordRow(db, id, collection.key, chunk.text);
    });
  })();
  return { document_id: docId, chunks: chunks.length, tokens };
}

export function deleteDocument(db: Database, collection: Collection, docId: string): void {
  db.transaction(() => {
    const doc = db
      .query<{ key: number; chunk_count: number; token_count: number; text_bytes: number }, [number, string]>(
        "SELECT key, chunk_count, token_count, text_bytes FROM memory_documents WHERE collection_key = ? AND doc_id = ?",
      )
      .get(collection.key, docId);
    if (!doc) throw documentNotFound();
    adjustTotals(db, collection.key, { documents: -1, chunks: -doc.chunk_count, tokens: -doc.token_count, text_bytes: -doc.text_bytes });
    deleteChunkRows(db, collection, "document_key", doc.key);
    db.query("DELETE FROM memory_documents WHERE key = ?").run(doc.key);
  })();
}
