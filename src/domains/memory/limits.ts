/**
 * Memory's limits in one place: the schemas (models.ts) state them to the OpenAPI document, the
 * service enforces what a schema cannot. docs/memory.md explains each.
 */
import { CHUNK_SIZE_RANGE, MAX_DOC_ID_CHARS, MAX_FILTER_KEYS, MAX_TOP_K } from "./engine/index.ts";

/** Spec §8: 100 collections per account; GET lists at most 200. */
export const MAX_COLLECTIONS_PER_ACCOUNT = 100;
export const MAX_COLLECTIONS_LISTED = 200;
/** Documents in one POST …/documents. */
export const MAX_DOCUMENTS_PER_REQUEST = 100;
/** Chunks in one POST …/documents: one embeddings call, and 2,048 is OpenAI's most inputs per call. */
export const MAX_CHUNKS_PER_REQUEST = 2048;
/** A collection's or a document's metadata, as JSON text. */
export const MAX_METADATA_BYTES = 16 * 1024;
export const MAX_QUERY_CHARS = 32_768;
export const NAME_MAX = 100;
export const DEFAULT_CHUNK_SIZE = 512;
export const DEFAULT_TOP_K = 10;
/** The default overlap: 64 tokens, or an eighth of a smaller chunk. */
export const defaultOverlap = (chunkSize: number): number => Math.min(64, Math.floor(chunkSize / 8));

export { CHUNK_SIZE_RANGE, MAX_DOC_ID_CHARS, MAX_FILTER_KEYS, MAX_TOP_K };

export const DOC_ID_PATTERN = `^[A-Za-z0-9_][A-Za-z0-9_.:@+~-]{0,${MAX_DOC_ID_CHARS - 1}}$`;
export const DOC_ID_REASON = `must be 1-${MAX_DOC_ID_CHARS} characters of letters, digits and _ . : @ + ~ -, starting with a letter, digit or _`;
export const FILTER_KEY_PATTERN = "^[A-Za-z0-9_.:-]{1,64}$";
