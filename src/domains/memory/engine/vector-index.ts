/**
 * The vector index: a 2-bit code per dimension in a sqlite-vec vec0 table, scanned by Hamming
 * distance for candidates, which are then re-ranked by exact cosine on the float32 embeddings
 * kept in memory_chunks. (docs/memory.md has the measurements behind each choice.)
 *
 * - Why quantise: sqlite-vec 0.1.9 (npm) has no ANN index, only exhaustive scans; its float scan
 *   costs ~40-60 ms per 100k × 384 here, its int8 scan ~40 ms, a 1-bit scan ~4 ms.
 * - Why 2 bits, not 1: sign bits lose too much ranking. On real all-MiniLM-L6-v2 embeddings
 *   (20k passages) recall@10 after re-ranking 80 candidates is 0.90 with 1 bit and 0.97 with 2.
 *   Each component is put in one of three levels, cut at ±0.43/√dimension (the tertiles of a
 *   unit vector's components), and written as a thermometer code (below, middle, above →
 *   00, 10, 11), so the Hamming distance between codes is the L1 distance between levels.
 *   Fixed cut points need no training and no per-collection statistics.
 * - Why shards: vec0 picks its k nearest with a selection that costs k comparisons per row, so
 *   one query for 400 candidates over 100k rows costs more than the scan itself. Each
 *   collection's rows are spread over SHARDS partitions (chunk id mod SHARDS); asking each for
 *   its share of the candidates does the same work at a fraction of the selection cost.
 * - Isolation: the collection is a vec0 partition key, so a query reads only its collection's
 *   rows; no other tenant's vectors are ever scanned or compared.
 * - One vec0 table per dimension (a vec0 column has a fixed width), created on first use.
 */
import type { Database, SQLQueryBindings } from "bun:sqlite";
import type { FilterSql } from "./metadata-filter.ts";

export const SHARDS = 16;
/** Rows per vec0 storage chunk. A partition allocates one whole chunk up front, so smaller keeps tiny collections small. */
const VEC0_CHUNK_SIZE = 256;
/** Below this many matching chunks a filtered search compares every one of them exactly. */
export const EXACT_FILTER_LIMIT = 4000;
export const MAX_CANDIDATES = 4000;

export const MAX_DIMENSION = 4096;

export const vectorTable = (dimension: number): string => {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > MAX_DIMENSION) throw new RangeError(`bad dimension ${dimension}`);
  return `memory_vectors_${dimension}`;
};

/** Bits in a code: two per dimension, rounded up to whole bytes (vec0 bit vectors are byte-sized). */
const codeBits = (dimension: number): number => Math.ceil((2 * dimension) / 8) * 8;

/** Creates the dimension's vec0 table unless it exists (runs inside createCollection's transaction). */
export function ensureVectorTable(db: Database, dimension: number): void {
  db.run(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${vectorTable(dimension)} USING vec0 (
       collection_key integer partition key,
       shard integer partition key,
       code bit[${codeBits(dimension)}],
       chunk_size = ${VEC0_CHUNK_SIZE}
     )`,
  );
}

/** An L2-normalised copy, or null for a vector that is not finite or has no length. */
export function normalised(vector: ArrayLike<number>): Float32Array | null {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i]!;
    if (!Number.isFinite(x)) return null;
    sum += x * x;
  }
  if (!(sum > 0) || !Number.isFinite(sum)) return null;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

/** The thermometer code of a normalised vector: bit 2i is "above the low cut", bit 2i+1 "above the high cut". */
export function quantise(unit: Float32Array): Uint8Array {
  const cut = 0.43 / Math.sqrt(unit.length);
  const code = new Uint8Array(codeBits(unit.length) / 8);
  for (let i = 0; i < unit.length; i++) {
    const x = unit[i]!;
    // vec0 reads bit j of a bit vector as bit (j & 7) of byte j >> 3, least significant first.
    if (x > -cut) code[(2 * i) >> 3]! |= 1 << ((2 * i) & 7);
    if (x > cut) code[(2 * i + 1) >> 3]! |= 1 << ((2 * i + 1) & 7);
  }
  return code;
}

export const embeddingBlob = (unit: Float32Array): Uint8Array => new Uint8Array(unit.buffer, unit.byteOffset, unit.byteLength);

export function insertVector(db: Database, dimension: number, chunkId: number, collectionKey: number, unit: Float32Array): void {
  db.query(`INSERT INTO ${vectorTable(dimension)} (rowid, collection_key, shard, code) VALUES (?, ?, ?, vec_bit(?))`).run(
    chunkId,
    collectionKey,
    chunkId % SHARDS,
    quantise(unit),
  );
}

export function deleteVector(db: Database, dimension: number, chunkId: number): void {
  db.query(`DELETE FROM ${vectorTable(dimension)} WHERE rowid = ?`).run(chunkId);
}

export interface VectorHit {
  chunkId: number;
  /** Cosine similarity, -1 to 1. */
  score: number;
}

/**
 * How many candidates to re-rank: at least 400 (and 8 × top_k), 0.4% of a larger collection, at
 * most 2000. Below 400 recall@10 fell under 0.95 in the bench even at 10k chunks; above 100k
 * chunks a true neighbour falls further behind in Hamming order, so the count grows with the
 * collection (docs/memory.md). A caller may ask for fewer (faster) or more per search.
 */
export function defaultCandidates(collectionChunks: number, topK: number): number {
  return Math.min(2000, Math.max(8 * topK, 400, Math.ceil(collectionChunks / 250)));
}

/** Exact cosine for the given chunks, best first. */
function rerank(db: Database, unitQuery: Float32Array, ids: number[], topK: number): VectorHit[] {
  if (!ids.length) return [];
  const rows = db
    .query<{ id: number; d: number }, [Uint8Array, string, number]>(
      `SELECT id, vec_distance_cosine(embedding, ?) AS d FROM memory_chunks
        WHERE id IN (SELECT value FROM json_each(?)) ORDER BY d, id LIMIT ?`,
    )
    .all(embeddingBlob(unitQuery), JSON.stringify(ids), topK);
  return rows.map((r) => ({ chunkId: r.id, score: 1 - r.d }));
}

/** Candidates from every shard: each returns its share of `candidates` nearest codes, only among `among` when given. */
function candidatesFromShards(db: Database, dimension: number, collectionKey: number, code: Uint8Array, candidates: number, among?: number[]): number[] {
  const perShard = Math.max(1, Math.ceil((candidates * 1.25) / SHARDS));
  const table = vectorTable(dimension);
  const base = `SELECT rowid FROM ${table} WHERE code MATCH vec_bit(?) AND k = ? AND collection_key = ? AND shard = ?`;
  const ids: number[] = [];
  if (among) {
    const byShard: number[][] = Array.from({ length: SHARDS }, () => []);
    for (const id of among) byShard[id % SHARDS]!.push(id);
    const statement = db.query<{ rowid: number }, [Uint8Array, number, number, number, string]>(`${base} AND rowid IN (SELECT value FROM json_each(?))`);
    byShard.forEach((shardIds, shard) => {
      if (shardIds.length) for (const row of statement.all(code, perShard, collectionKey, shard, JSON.stringify(shardIds))) ids.push(row.rowid);
    });
    return ids;
  }
  const statement = db.query<{ rowid: number }, [Uint8Array, number, number, number]>(base);
  for (let shard = 0; shard < SHARDS; shard++) for (const row of statement.all(code, perShard, collectionKey, shard)) ids.push(row.rowid);
  return ids;
}

/** Ids of the collection's chunks whose document matches the filter. Metadata is not indexed: this reads every document of the collection once. */
function matchingChunkIds(db: Database, collectionKey: number, filter: FilterSql): number[] {
  return db
    .query<{ id: number }, SQLQueryBindings[]>(
      `SELECT c.id FROM memory_chunks c
        WHERE c.document_key IN (SELECT d.key FROM memory_documents d WHERE d.collection_key = ? AND ${filter.sql})`,
    )
    .all(collectionKey, ...filter.params)
    .map((r) => r.id);
}

export interface VectorSearchOptions {
  topK: number;
  /** How many quantised candidates to re-rank exactly (more: better recall, slower). */
  candidates: number;
  filter?: FilterSql;
}

/**
 * Nearest chunks of one collection by cosine. With a metadata filter: when few chunks match,
 * all of them are compared exactly; otherwise the matching ids are handed to the vec0 scan
 * (a pre-filter: rows that do not match are never candidates, so no over-fetch is needed).
 */
export function vectorSearch(db: Database, dimension: number, collectionKey: number, unitQuery: Float32Array, options: VectorSearchOptions): VectorHit[] {
  const { topK, candidates, filter } = options;
  if (filter) {
    const matching = matchingChunkIds(db, collectionKey, filter);
    if (matching.length <= Math.max(EXACT_FILTER_LIMIT, candidates)) return rerank(db, unitQuery, matching, topK);
    return rerank(db, unitQuery, candidatesFromShards(db, dimension, collectionKey, quantise(unitQuery), candidates, matching), topK);
  }
  return rerank(db, unitQuery, candidatesFromShards(db, dimension, collectionKey, quantise(unitQuery), candidates), topK);
}

/** Exact nearest chunks by scanning every embedding of the collection: the bench's ground truth, and a check in tests. */
export function exactVectorSearch(db: Database, collectionKey: number, unitQuery: Float32Array, topK: number): VectorHit[] {
  return db
    .query<{ id: number; d: number }, [Uint8Array, number, number]>(
      "SELECT id, vec_distance_cosine(embedding, ?) AS d FROM memory_chunks WHERE collection_key = ? ORDER BY d, id LIMIT ?",
    )
    .all(embeddingBlob(unitQuery), collectionKey, topK)
    .map((r) => ({ chunkId: r.id, score: 1 - r.d }));
}
