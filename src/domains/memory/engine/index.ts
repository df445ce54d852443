/**
 * The memory engine's front door: storage, chunking and search for memory collections. No HTTP,
 * no metering, no embedding provider: callers pass an embedder (documents) or a query vector
 * (search). Open a connection, load sqlite-vec on it (loadVectorExtension), apply the schema
 * (schema.sql, as a migration), then call these.
 */
export { loadVectorExtension, openMemoryIndex, vectorExtensionVersion, VectorExtensionError, type MemoryConnectionOptions, type VectorExtensionOptions } from "./vector-extension.ts";
export { createCollection, getCollection, listCollections, deleteCollection, collectionStats, type Collection, type NewCollection, type CollectionStats } from "./collections.ts";
export { upsertDocument, deleteDocument, type DocumentInput, type Embedder, type TextSealer, type UpsertResult } from "./documents.ts";
export { search, MAX_TOP_K, type SearchHit, type SearchMode, type SearchQuery } from "./search.ts";
export { chunkText, type Chunk } from "./chunker.ts";
export { reciprocalRankFusion } from "./fusion.ts";
export type { MetadataFilter, Metadata } from "./metadata-filter.ts";
import schemaSql from "./schema.sql" with { type: "text" };

/** The tables and virtual tables the engine needs, for a numbered migration. */
export const memorySchemaSql: string = schemaSql;
