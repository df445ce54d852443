/**
 * search(): the top chunks of one collection for a query vector (mode "vector"), query text
 * ("keyword", FTS5 bm25) or both ("hybrid", the two lists fused by reciprocal rank). A metadata
 * filter narrows every mode inside the index queries themselves (vector-index.ts says how), so a
 * filter never returns fewer than top_k when enough chunks match.
 */
import type { Database } from "bun:sqlite";
import { invalidField } from "../../../core/errors.ts";
import type { Collection } from "./collections.ts";
import { chunkAad, type TextSealer } from "./documents.ts";
import { dimensionMismatch, invalidVector, keywordSearchUnavailable } from "./errors.ts";
import { reciprocalRankFusion } from "./fusion.ts";
import { keywordSearch } from "./keyword-index.ts";
import { filterSql, type Metadata, type MetadataFilter } from "./metadata-filter.ts";
import { defaultCandidates, MAX_CANDIDATES, normalised, vectorSearch } from "./vector-index.ts";

export type SearchMode = "vector" | "keyword" | "hybrid";

export interface SearchQuery {
  mode: SearchMode;
  queryVector?: ArrayLike<number>;
  queryText?: string;
  topK: number;
  filter?: MetadataFilter;
  /** Quantised candidates re-ranked exactly (vector and hybrid); default scales with the collection. */
  candidates?: number;
}

export interface SearchHit {
  chunk_id: string;
  document_id: string;
  /** 0-based position of the chunk in its document. */
  chunk_index: number;
  /** vector: cosine similarity; keyword: bm25 (higher is better); hybrid: fused reciprocal-rank score. */
  score: number;
  metadata: Metadata;
  text: string;
}

export const MAX_TOP_K = 100;
/** How deep each list goes before fusion: deeper than top_k, so an item ranked fairly well by both lists can win. */
const fusionDepth = (topK: number): number => Math.min(200, Math.max(50, 2 * topK));

export function search(db: Database, collection: Collection, query: SearchQuery, options: { sealer?: TextSealer } = {}): SearchHit[] {
  const { mode, topK } = query;
  if (mode !== "vector" && mode !== "keyword" && mode !== "hybrid") throw invalidField("mode", 'must be "vector", "keyword" or "hybrid"');
  if (!Number.isInteger(topK) || topK < 1 || topK > MAX_TOP_K) throw invalidField("top_k", `must be an integer from 1 to ${MAX_TOP_K}`);
  if (mode !== "vector" && collection.sealText) throw keywordSearchUnavailable(collection.id);
  if (collection.sealText && !options.sealer) throw new Error("this collection seals chunk text: pass a sealer");
  const filter = filterSql(query.filter);

  let unit: Float32Array | null = null;
  if (mode !== "keyword") {
    const v = query.queryVector;
    if (!v) throw invalidField("query_vector", `is required in ${mode} mode`);
    // A collection whose dimension is still open has no vectors: nothing can match.
    if (collection.dimension === null) return [];
    if (v.length !== collection.dimension) throw dimensionMismatch("query_vector", collection.dimension, v.length);
    unit = normalised(v);
    if (!unit) throw invalidVector("query_vector", "must be finite numbers, not all zero");
  }
  const text = query.queryText;
  if (mode !== "vector" && (typeof text !== "string" || !text.trim())) throw invalidField("query_text", `is required in ${mode} mode`);
  if (query.candidates !== undefined && (!Number.isInteger(query.candidates) || query.candidates < 1 || query.candidates > MAX_CANDIDATES)) {
    throw invalidField("candidates", `must be an integer from 1 to ${MAX_CANDIDATES}`);
  }

  const depth = mode === "hybrid" ? fusionDepth(topK) : topK;
  const vectorHits = unit
    ? vectorSearch(db, collection.dimension!, collection.key, unit, {
        topK: depth,
        candidates: Math.max(query.candidates ?? defaultCandidates(chunkCount(db, collection), depth), depth),
        filter,
      })
    : [];
  const keywordHits = mode !== "vector" ? keywordSearch(db, collection.key, text!, depth, filter) : [];

  let ranked: { chunkId: number; score: number }[];
  if (mode === "vector") ranked = vectorHits;
  else if (mode === "keyword") ranked = keywordHits;
  else {
    ranked = reciprocalRankFusion([vectorHits.map((h) => h.chunkId), keywordHits.map((h) => h.chunkId)])
      .slice(0, topK)
      .map((f) => ({ chunkId: f.id, score: f.score }));
  }
  return hydrate(db, collection, ranked.slice(0, topK), options.sealer);
}

const chunkCount = (db: Database, collection: Collection): number =>
  db.query<{ chunks: number }, [number]>("SELECT chunks FROM memory_collections WHERE key = ?").get(collection.key)?.chunks ?? 0;

interface ChunkRow {
  id: number;
  ordinal: number;
  text: string;
  doc_id: string;
  metadata: string;
}

/** Text, document id and metadata for ranked chunk ids, in rank order. */
function hydrate(db: Database, collection: Collection, ranked: { chunkId: number; score: number }[], sealer?: TextSealer): SearchHit[] {
  if (!ranked.length) return [];
  const rows = db
    .query<ChunkRow, [string, number]>(
      `SELECT c.id, c.ordinal, c.text, d.doc_id, d.metadata FROM memory_chunks c JOIN memory_documents d ON d.key = c.document_key
        WHERE c.id IN (SELECT value FROM json_each(?)) AND c.collection_key = ?`,
    )
    .all(JSON.stringify(ranked.map((r) => r.chunkId)), collection.key);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const hits: SearchHit[] = [];
  for (const { chunkId, score } of ranked) {
    const row = byId.get(chunkId);
    if (!row) continue;
    hits.push({
      chunk_id: `${row.doc_id}#${row.ordinal}`,
      document_id: row.doc_id,
      chunk_index: row.ordinal,
      score,
      metadata: JSON.parse(row.metadata) as Metadata,
      text: collection.sealText ? sealer!.openText(row.text, chunkAad(collection.id, row.doc_id, row.ordinal)) : row.text,
    });
  }
  return hits;
}
