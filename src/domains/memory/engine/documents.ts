/**
 * Documents: prepareDocument checks and chunks a document; the caller embeds the chunks (outside
 * any transaction: bun:sqlite transactions are synchronous, and an embedding call is slow);
 * storeDocuments then replaces each document's chunks, vectors and keyword rows in ONE
 * transaction, so a search sees the old versions or the new ones, never a mix. upsertDocument
 * does the three for one document with the caller's embedder.
 */
import type { Database } from "bun:sqlite";
import { invalidField } from "../../../core/errors.ts";
import { type Chunk, chunkText } from "./chunker.ts";
import { adjustTotals, type Collection, collectionLive, deleteChunkRows, fixDimension } from "./collections.ts";
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

/** A document checked and cut into chunks, ready to be embedded and stored. */
export interface PreparedDocument {
  docId: string;
  text: string;
  metadata: Metadata;
  chunks: Chunk[];
  tokens: number;
}

/** Checks a document and cuts it into the collection's chunks (no embedding yet). */
export function prepareDocument(collection: Collection, input: DocumentInput, param = "document"): PreparedDocument {
  const { docId, text } = input;
  if (typeof docId !== "string" || !docId || docId.length > MAX_DOC_ID_CHARS) throw invalidField(`${param}.id`, `must be 1-${MAX_DOC_ID_CHARS} characters`);
  if (typeof text !== "string") throw invalidField(`${param}.text`, "must be a string");
  const metadata = checkMetadata(input.metadata);
  const chunks = chunkText(text, { chunkSize: collection.chunkSize, overlap: collection.chunkOverlap });
  if (chunks.length > MAX_CHUNKS_PER_DOCUMENT) throw invalidField(`${param}.text`, `cuts into ${chunks.length} chunks; at most ${MAX_CHUNKS_PER_DOCUMENT} per document`);
  return { docId, text, metadata, chunks, tokens: chunks.reduce((sum, c) => sum + c.tokens, 0) };
}

/**
 * Stores prepared documents with one vector per chunk (in order), replacing any earlier version
 * of each, in ONE transaction: a search sees all of them or none. The first vectors a collection
 * gets fix its dimension; vectors of another size are refused (dimension_mismatch) and nothing
 * is written. 404 when the collection was deleted meanwhile (e.g. while the embedder ran).
 */
export function storeDocuments(
  db: Database,
  collection: Collection,
  docs: { doc: PreparedDocument; vectors: ArrayLike<number>[] }[],
  options: { sealer?: TextSealer; now?: number } = {},
): UpsertResult[] {
  if (collection.sealText && !options.sealer) throw new Error("this collection seals chunk text: pass a sealer");
  for (const { doc, vectors } of docs) if (vectors.length !== doc.chunks.length) throw embedderMismatch(doc.chunks.length, vectors.length);
  const first = docs.find((d) => d.vectors.length)?.vectors[0];
  const now = options.now ?? Date.now();

  return db.transaction(() => {
    if (!collectionLive(db, collection.key)) throw collectionNotFound();
    // Fixed (or checked) before any vector is read, so every one is measured against it.
    const dimension = first ? fixDimension(db, collection, first.length, "embeddings[0]") : collection.dimension;
    let index = 0;
    return docs.map(({ doc, vectors }) => {
      const units = vectors.map((v) => {
        const param = `embeddings[${index++}]`;
        if (v.length !== dimension) throw dimensionMismatch(param, dimension!, v.length);
        const unit = normalised(v);
        if (!unit) throw invalidVector(param, "must be finite numbers, not all zero");
        return unit;
      });
      writeDocument(db, collection, doc, units, dimension, options.sealer, now);
      return { document_id: doc.docId, chunks: doc.chunks.length, tokens: doc.tokens };
    });
  })();
}

function writeDocument(db: Database, collection: Collection, doc: PreparedDocument, units: Float32Array[], dimension: number | null, sealer: TextSealer | undefined, now: number): void {
  const { docId, chunks, tokens, metadata } = doc;
  const stored = chunks.map((c) => (collection.sealText ? sealer!.seal(c.text, chunkAad(collection.id, docId, c.index)) : c.text));
  const existing = db
    .query<{ key: number; chunk_count: number; token_count: number; text_bytes: number }, [number, string]>(
      "SELECT key, chunk_count, token_count, text_bytes FROM memory_documents WHERE collection_key = ? AND doc_id = ?",
    )
    .get(collection.key, docId);
  const textBytes = Buffer.byteLength(doc.text);
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
    insertVector(db, dimension!, id, collection.key, units[i]!);
    if (!collection.sealText) insertKeywordRow(db, id, collection.key, chunk.text);
  });
}

/**
 * One document: chunked, embedded (the embedder runs outside any transaction: bun:sqlite
 * transactions are synchronous, and an embedding call is slow), then stored (storeDocuments).
 */
export async function upsertDocument(
  db: Database,
  collection: Collection,
  input: DocumentInput,
  embed: Embedder,
  options: { sealer?: TextSealer; now?: number } = {},
): Promise<UpsertResult> {
  if (collection.sealText && !options.sealer) throw new Error("this collection seals chunk text: pass a sealer");
  const doc = prepareDocument(collection, input, "document");
  const vectors = doc.chunks.length ? await embed(doc.chunks.map((c) => c.text)) : [];
  return storeDocuments(db, collection, [{ doc, vectors }], options)[0]!;
}

export function deleteDocument(db: Database, collection: Collection, docId: string): void {
  db.transaction(() => {
    if (!collectionLive(db, collection.key)) throw collectionNotFound();
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
