/**
 * Collections: a named set of documents with a fixed embedding model and dimension (vectors of
 * another size are refused) and fixed chunking. Everything here is account-scoped by the caller:
 * getCollection answers null for another account's id, exactly as for an unknown one.
 *
 * The dimension may be left open at creation (the caller does not know what its model returns):
 * the first vectors stored fix it, in the transaction that stores them (fixDimension).
 *
 * Deleting is two steps, so a large collection never holds the write lock for seconds:
 * markCollectionDeleted hides it at once (reads, writes and the per-account count treat it as
 * gone), then purgeCollection removes its rows a batch per transaction (a scheduler job).
 */
import type { Database } from "bun:sqlite";
import { invalidField } from "../../../core/errors.ts";
import { checkChunkOptions } from "./chunker.ts";
import { collectionNotFound, dimensionMismatch } from "./errors.ts";
import { deleteKeywordRow } from "./keyword-index.ts";
import { checkMetadata, type Metadata } from "./metadata-filter.ts";
import { deleteVector, ensureVectorTable, MAX_DIMENSION } from "./vector-index.ts";

export interface Collection {
  /** Internal integer key: the vec0 partition and the FTS5 term prefix. Never shown to callers. */
  key: number;
  id: string;
  accountId: string;
  name: string;
  model: string;
  /** Null until the first vectors are stored (unless given at creation). */
  dimension: number | null;
  chunkSize: number;
  chunkOverlap: number;
  sealText: boolean;
  metadata: Metadata;
  createdAt: number;
}

export interface NewCollection {
  id: string;
  accountId: string;
  name: string;
  model: string;
  /** Leave out to let the first vectors stored fix it. */
  dimension?: number | null;
  chunkSize?: number;
  chunkOverlap?: number;
  sealText?: boolean;
  metadata?: Metadata;
}

export const DEFAULT_CHUNK_SIZE = 512;
export const DEFAULT_CHUNK_OVERLAP = 64;

interface Row {
  key: number;
  id: string;
  account_id: string;
  name: string;
  model: string;
  dimension: number | null;
  chunk_size: number;
  chunk_overlap: number;
  seal_text: number;
  metadata: string;
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
  metadata: JSON.parse(r.metadata) as Metadata,
  createdAt: r.created_at,
});

const COLUMNS = "key, id, account_id, name, model, dimension, chunk_size, chunk_overlap, seal_text, metadata, created_at";

export const checkDimension = (dimension: number, param = "dimension"): void => {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > MAX_DIMENSION) throw invalidField(param, `must be an integer from 1 to ${MAX_DIMENSION}`);
};

export function createCollection(db: Database, input: NewCollection, now: number = Date.now()): Collection {
  const chunkSize = input.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunkOverlap = input.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP;
  const dimension = input.dimension ?? null;
  if (dimension !== null) checkDimension(dimension);
  if (!input.model.trim()) throw invalidField("model", "must name the embedding model");
  try {
    checkChunkOptions({ chunkSize, overlap: chunkOverlap });
  } catch (err) {
    const message = (err as Error).message;
    throw invalidField(message.startsWith("chunk_overlap") ? "chunk_overlap" : "chunk_size", message);
  }
  const metadata = JSON.stringify(checkMetadata(input.metadata));
  return db.transaction(() => {
    if (dimension !== null) ensureVectorTable(db, dimension);
    const row = db
      .query<Row, [string, string, string, string, number | null, number, number, number, string, number]>(
        `INSERT INTO memory_collections (id, account_id, name, model, dimension, chunk_size, chunk_overlap, seal_text, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      )
      .get(input.id, input.accountId, input.name, input.model, dimension, chunkSize, chunkOverlap, input.sealText ? 1 : 0, metadata, now)!;
    return fromRow(row);
  })();
}

/** The account's collection, or null (unknown, deleted and other accounts' ids alike). */
export function getCollection(db: Database, accountId: string, id: string): Collection | null {
  const row = db
    .query<Row, [string, string]>(`SELECT ${COLUMNS} FROM memory_collections WHERE id = ? AND account_id = ? AND deleted_at IS NULL`)
    .get(id, accountId);
  return row ? fromRow(row) : null;
}

/** The account's collections, oldest first. */
export function listCollections(db: Database, accountId: string, limit = 200): Collection[] {
  return db
    .query<Row, [string, number]>(`SELECT ${COLUMNS} FROM memory_collections WHERE account_id = ? AND deleted_at IS NULL ORDER BY created_at, key LIMIT ?`)
    .all(accountId, limit)
    .map(fromRow);
}

/** How many collections the account has (deleted ones not counted). */
export function countCollections(db: Database, accountId: string): number {
  return db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM memory_collections WHERE account_id = ? AND deleted_at IS NULL").get(accountId)!.n;
}

/** True while the collection exists and is not deleted (checked again inside write transactions). */
export const collectionLive = (db: Database, collectionKey: number): boolean =>
  db.query("SELECT 1 FROM memory_collections WHERE key = ? AND deleted_at IS NULL").get(collectionKey) !== null;

/**
 * The collection's dimension inside a write transaction: its fixed one, or `proposed` when it had
 * none yet (stored, and its vec0 table created). Throws dimension_mismatch when they differ.
 */
export function fixDimension(db: Database, collection: Collection, proposed: number, param: string): number {
  const row = db.query<{ dimension: number | null }, [number]>("SELECT dimension FROM memory_collections WHERE key = ?").get(collection.key);
  const current = row?.dimension ?? null;
  if (current !== null) {
    if (current !== proposed) throw dimensionMismatch(param, current, proposed);
    return current;
  }
  checkDimension(proposed, param);
  ensureVectorTable(db, proposed);
  db.query("UPDATE memory_collections SET dimension = ? WHERE key = ?").run(proposed, collection.key);
  collection.dimension = proposed;
  return proposed;
}

/** Removes chunks from both indexes and the chunk table (inside the caller's transaction); at most `limit` when given. */
export function deleteChunkRows(db: Database, collection: Collection, where: "document_key" | "collection_key", key: number, limit = -1): number {
  const ids = db.query<{ id: number }, [number, number]>(`SELECT id FROM memory_chunks WHERE ${where} = ? LIMIT ?`).all(key, limit);
  if (!ids.length) return 0;
  // A chunk exists only once the dimension is fixed, so it is known here.
  const dimension = collection.dimension ?? db.query<{ dimension: number }, [number]>("SELECT dimension FROM memory_collections WHERE key = ?").get(collection.key)!.dimension;
  for (const { id } of ids) {
    deleteVector(db, dimension, id);
    if (!collection.sealText) deleteKeywordRow(db, id);
  }
  db.query("DELETE FROM memory_chunks WHERE id IN (SELECT value FROM json_each(?))").run(JSON.stringify(ids.map((r) => r.id)));
  return ids.length;
}

/** Deletes the collection with its documents, chunks, vectors and index rows, in one transaction (small collections, tests, the bench). */
export function deleteCollection(db: Database, collection: Collection): void {
  db.transaction(() => {
    if (!collectionLive(db, collection.key)) throw collectionNotFound();
    deleteChunkRows(db, collection, "collection_key", collection.key);
    db.query("DELETE FROM memory_documents WHERE collection_key = ?").run(collection.key);
    db.query("DELETE FROM memory_collections WHERE key = ?").run(collection.key);
  })();
}

/** Hides the collection from its owner at once (step one of deleting); false when it was already gone. */
export function markCollectionDeleted(db: Database, collection: Collection, now: number = Date.now()): boolean {
  return db.query("UPDATE memory_collections SET deleted_at = ? WHERE key = ? AND deleted_at IS NULL").run(now, collection.key).changes > 0;
}

/** Keys of collections marked deleted whose rows are still there, oldest first. */
export function collectionsToPurge(db: Database, limit = 100): number[] {
  return db
    .query<{ key: number }, [number]>("SELECT key FROM memory_collections WHERE deleted_at IS NOT NULL ORDER BY deleted_at, key LIMIT ?")
    .all(limit)
    .map((r) => r.key);
}

/**
 * Step two: removes up to `batch` chunks of a deleted collection (vectors and keyword rows with
 * them) in one transaction; once none are left, its documents and its row. True when it is gone.
 */
export function purgeCollection(db: Database, collectionKey: number, batch = 2000): boolean {
  return db.transaction(() => {
    const row = db
      .query<Row & { deleted_at: number | null }, [number]>(`SELECT ${COLUMNS}, deleted_at FROM memory_collections WHERE key = ?`)
      .get(collectionKey);
    if (!row) return true;
    if (row.deleted_at === null) return false;
    const collection = fromRow(row);
    if (deleteChunkRows(db, collection, "collection_key", collection.key, batch) === batch) return false;
    db.query("DELETE FROM memory_documents WHERE collection_key = ?").run(collection.key);
    db.query("DELETE FROM memory_collections WHERE key = ?").run(collection.key);
    return true;
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
