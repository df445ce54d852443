/**
 * The memory engine: storage, chunking and search for memory collections. No HTTP, no metering,
 * no embedding provider: callers pass vectors (documents, queries) or an embedder. Every
 * connection loads sqlite-vec first (loadVectorExtension; the memory module names it to the
 * context, which loads it before migrations), and the tables come from migration 0015.
 * Private to the memory area: the area's service (../service.ts) is what the routes and CLI call.
 */
export { loadVectorExtension, openMemoryIndex, vectorExtensionPath, vectorExtensionSupported, vectorExtensionVersion, VectorExtensionError, VECTOR_ENTRY_POINT, type MemoryConnectionOptions, type VectorExtensionOptions } from "./vector-extension.ts";
export {
  createCollection,
  getCollection,
  listCollections,
  countCollections,
  deleteCollection,
  markCollectionDeleted,
  collectionsToPurge,
  purgeCollection,
  collectionStats,
  checkDimension,
  type Collection,
  type NewCollection,
  type CollectionStats,
} from "./collections.ts";
export { prepareDocument, storeDocuments, upsertDocument, deleteDocument, MAX_DOC_ID_CHARS, MAX_CHUNKS_PER_DOCUMENT, type DocumentInput, type Embedder, type PreparedDocument, type TextSealer, type UpsertResult } from "./documents.ts";
export { search, MAX_TOP_K, type SearchHit, type SearchMode, type SearchQuery } from "./search.ts";
export { chunkText, CHUNK_SIZE_RANGE, type Chunk } from "./chunker.ts";
export { reciprocalRankFusion } from "./fusion.ts";
export { dimensionMismatch, keywordSearchUnavailable } from "./errors.ts";
export { MAX_DIMENSION } from "./vector-index.ts";
export { checkFilter, MAX_FILTER_KEYS, type MetadataFilter, type Metadata } from "./metadata-filter.ts";
