/**
 * Collections: a named set of documents with a fixed embedding model and dimension (vectors of
 * another size are refused) and fixed chunking. Everything here is account-scoped by the caller:
 * getCollection answers null for another account's id, exactly as for an unknown one.
 */
import type { Database } from "bun:sqlite";
import { invalidField } from "../../../core/errors.ts";
import { checkChunkOptions } from "./chunker.ts";
import { collectionNotFound } from "./errors.ts";
import { deleteKeywordRow } from "./keyword-index.ts";
import { deleteVector, ensureVectorTable } from "./vector-index.ts";

export interface Collection {
  /** Internal integer key: the vec0 partition and the FTS5 term prefix. Never shown to callers. */
  key: number;
  id: string;
  accountId: string;
  name: string;
  model: string;
  dimension: number;
  chunkSize: number;
  chunkOverlap: number;
  sealText: boolean;
  createdAt: number;
}

export interface NewCollection {
  id: string;
  accountId: string;
  name: string;
  model: string;
  dimension: number;
  chunkSize?: number;
  chunkOverlap?: number;
  sealText?: boolean;
}

export const DEFAULT_CHUNK_SIZE = 512;
export const DEFAULT_CHUNK_OVERLAP = 64;

interface Row {
  key: number;
  id: string;
  account_id: string;
  name: string;
  model: string;
  dimension: number;
  chunk_size: number;
  chunk_overlap: number;
  seal_text: number;
  created_at: number;
}

const fromRow = (r: Row): Collection => ({
  key: r.key,
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  model: r.model,
  dimension: r.dimension,
  chunkSize: r.chunk_size,
  chunkOverlap: r.chunk_overlap,
  sealText: r.seal_text === 1,
  createdAt: r.created_at,
});

export function createCollection(db: Database, input: NewCollection, now: number = Date.now()): Collection {
  const chunkSize = input.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunkOverlap = input.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP;
  if (!Number.isInteger(input.dimension) || input.dimension < 1 || input.dimension > 4096) throw invalidField("dimension", "must be an integer from 1 to 4096");
  if (!input.model.trim()) throw invalidField("model", "must name the embedding model");
  try {
    checkChunkOptions({ chunkSize, overlap: chunkOverlap });
  } catch (err) {
    const message = (err as Error).message;
    throw invalidField(message.startsWith("chunk_overlap") ? "chunk_overlap" : "chunk_size", message);
  }
  return db.transaction(() => {
    ensureVectorTable(db, input.dimension);
    const row = db
      .query<Row, [string, string, string, string, number, number, number, number, number]>(
        `INSERT INTO memory_collections (id, account_id, name, model, dimension, chunk_size, chunk_overlap, seal_text, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(input.id, input.accountId, input.name, input.model, input.dimension, chunkSize, chunkOverlap, input.sealText ? 1 : 0, now)!;
    return fromRow(row);
  })();
}

/** The account's collection, or null (unknown and other accounts' ids alike). */
export function getCollection(db: Database, accountId: string, id: string): Collection | null {
  const row = db.query<Row, [string, string]>("SELECT * FROM memory_collections WHERE id = ? AND account_id = ?").get(id, accountId);
  return row ? fromRow(row) : null;
}

export function listCollections(db: Database, accountId: string, limit = 200): Collection[] {
  return db
    .query<Row, [string, number]>("SELECT * FROM memory_collections WHERE account_id = ? ORDER BY created_at, key LIMIT ?")
    .all(accountId, limit)
    .map(fromRow);
}

/** Removes a chunk from both indexes and the chunk table (inside the caller's transaction). */
export function deleteChunkRows(db: Database, collection: Collection, where: "document_key" | "collection_key", key: number): number {
  const ids = db.query<{ id: number }, [number]>(`SELECT id FROM memory_chunks WHERE ${where} = ?`).all(key);
  for (const { id } of ids) {
    deleteVector(db, collection.dimension, id);
    if (!collection.sealText) deleteKeywordRow(db, id);
  }
  db.query(`DELETE FROM memory_chunks WHERE ${where} = ?`).run(key);
  return ids.length;
}

/** Deletes the collection with its documents, chunks, vectors and index rows, in one transaction. */
export function deleteCollection(db: Database, collection: Collection): void {
  db.transaction(() => {
    const exists = db.query("SELECT 1 FROM memory_collections WHERE key = ?").get(collection.key);
    if (!exists) throw collectionNotFound();
    deleteChunkRows(db, collection, "collection_key", collection.key);
    db.query("DELETE FROM memory_documents WHERE collection_key = ?").run(collection.key);
    db.query("DELETE FROM memory_collections WHERE key = ?").run(collection.key);
  })();
}

export interface CollectionStats {
  documents: number;
  chunks: number;
  tokens: number;
  text_bytes: number;
}

export function collectionStats(db: Database, collection: Collection): CollectionStats {
  const row = db
    .query<CollectionStats, [number]>("SELECT documents, chunks, tokens, text_bytes FROM memory_collections WHERE key = ?")
    .get(collection.key);
  return row ?? { documents: 0, chunks: 0, tokens: 0, text_bytes: 0 };
}

/** Moves the collection's running totals by a delta (inside the caller's transaction). */
export function adjustTotals(db: Database, collectionKey: number, delta: CollectionStats): void {
  db.query("UPDATE memory_collections SET documents = documents + ?, chunks = chunks + ?, tokens = tokens + ?, text_bytes = text_bytes + ? WHERE key = ?").run(
    delta.documents,
    delta.chunks,
    delta.tokens,
    delta.text_bytes,
    collectionKey,
  );
}
