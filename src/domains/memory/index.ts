/**
 * Memory collections (/v1/memory/collections): documents chunked, embedded through the metered
 * inference pipeline, and searched by vector (sqlite-vec), keyword (FTS5) or both.
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { getCollectionView, listCollections, memoryUsage, type CollectionView } from "./service.ts";
export { type SearchResult, searchCollection } from "./service.ts";

/** Whether this deployment runs memory collections (the vector extension exists for this platform only on linux-x64). */
export { vectorExtensionSupported as memoryEnabled } from "./engine/index.ts";
