/**
 * Memory collections: the rules between the routes (and CLI) and the engine (engine/).
 *
 * - Account-scoped: another account's collection is "not found", like an unknown one.
 * - A collection keeps the embedding model it was created with (default: memory.embedding_model)
 *   and the dimension that model first answered with. Later embeddings of another size (the
 *   model's upstream was changed) are refused 409 dimension_mismatch before anything is billed.
 * - Embeddings go through the inference pipeline (inference's embedMetered): billed as embedding
 *   usage on the caller's key, with a signed receipt whose headers the route returns. One call per
 *   request: all chunks of all its documents (at most 2,048), or the one query.
 * - Documents of a request are stored in one transaction after the embeddings came back: a
 *   search sees all of them or none. Adding a document id again replaces its chunks.
 * - Keyword search embeds nothing and costs nothing; so does a search of an empty collection.
 * - Deleting a collection hides it at once; a job removes its rows in batches (purgeDeleted).
 */
import { ApiError, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Settlement } from "../../core/meter.ts";
import type { Context } from "../../context.ts";
import { checkEmbeddingModel, embedMetered, type MeteredEmbeddings } from "../inference/index.ts";
import type { ApiKeyPrincipal } from "../keys/index.ts";
import {
  checkFilter,
  collectionsToPurge,
  collectionStats,
  countCollections,
  createCollection as createInEngine,
  deleteDocument as deleteInEngine,
  getCollection,
  keywordSearchUnavailable,
  listCollections as listInEngine,
  markCollectionDeleted,
  type Collection,
  type Metadata,
  type MetadataFilter,
  prepareDocument,
  purgeCollection,
  search,
  type SearchMode,
  storeDocuments,
} from "./engine/index.ts";
import {
  DEFAULT_CHUNK_SIZE,
  DEFAULT_TOP_K,
  defaultOverlap,
  MAX_CHUNKS_PER_REQUEST,
  MAX_COLLECTIONS_LISTED,
  MAX_COLLECTIONS_PER_ACCOUNT,
  MAX_METADATA_BYTES,
} from "./limits.ts";

export const PURGE_JOB = "memory.purge_collection";
export const PURGE_SWEEP_JOB = "memory.purge_deleted";
/** Chunks removed per transaction while purging a deleted collection. */
const PURGE_BATCH = 2000;

export interface CollectionView {
  id: string;
  name: string;
  embedding_model: string;
  dimension: number | null;
  chunk_size: number;
  chunk_overlap: number;
  seal_text: boolean;
  metadata: Metadata;
  documents: number;
  chunks: number;
  tokens: number;
  created_at: string;
}

export interface EmbeddingUsage {
  embedding_tokens: number;
  cost_micro_usd: number;
}

/** What an embedding call adds to a response: the usage in the body, the receipt in headers. */
export interface Billed {
  usage: EmbeddingUsage;
  headers: Record<string, string>;
  /** The embedding call's settle (its receipt); null when nothing was embedded. */
  settlement: Settlement | null;
}

const FREE: Billed = { usage: { embedding_tokens: 0, cost_micro_usd: 0 }, headers: {}, settlement: null };

const view = (ctx: Context, c: Collection): CollectionView => {
  const stats = collectionStats(ctx.db, c);
  return {
    id: c.id,
    name: c.name,
    embedding_model: c.model,
    dimension: c.dimension,
    chunk_size: c.chunkSize,
    chunk_overlap: c.chunkOverlap,
    seal_text: c.sealText,
    metadata: c.metadata,
    documents: stats.documents,
    chunks: stats.chunks,
    tokens: stats.tokens,
    created_at: new Date(c.createdAt).toISOString(),
  };
};

function checkMetadataSize(metadata: unknown, param: string): void {
  if (metadata === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > MAX_METADATA_BYTES) throw invalidField(param, `is ${bytes} bytes as JSON; at most ${MAX_METADATA_BYTES} (16 KiB)`);
}

export const collectionLimitReached = (): ApiError =>
  new ApiError(409, "collection_limit_reached", `this account has ${MAX_COLLECTIONS_PER_ACCOUNT} memory collections, the most allowed; delete one first`, {
    limit: MAX_COLLECTIONS_PER_ACCOUNT,
  });

/** The model answered with vectors of another size than the collection's: its upstream changed. Nothing was billed. */
export const modelDimensionChanged = (c: Collection, got: number): ApiError =>
  new ApiError(
    409,
    "dimension_mismatch",
    `collection ${c.id} holds ${c.dimension}-dimensional embeddings, but its model ${c.model} now answers with ${got} dimensions; nothing was billed. Create a new collection for the model as it is now`,
    { expected_dimension: c.dimension, dimension: got },
  );

export function requireCollection(ctx: Context, accountId: string, id: string): Collection {
  const c = getCollection(ctx.db, accountId, id);
  if (!c) throw notFound("collection");
  return c;
}

export interface NewCollectionInput {
  name: string;
  embedding_model?: string;
  chunk_size?: number;
  chunk_overlap?: number;
  metadata?: Metadata;
}

export function createCollection(ctx: Context, accountId: string, input: NewCollectionInput): CollectionView {
  const model = input.embedding_model ?? ctx.config.memory.embedding_model;
  if (!model) throw invalidField("embedding_model", "is required: this deployment sets no default (memory.embedding_model); name an embedding model from GET /v1/models");
  checkEmbeddingModel(ctx, model, "embedding_model");
  checkMetadataSize(input.metadata, "metadata");
  const chunkSize = input.chunk_size ?? DEFAULT_CHUNK_SIZE;
  // Counted and created with no await between: no other request's create can come in between.
  if (countCollections(ctx.db, accountId) >= MAX_COLLECTIONS_PER_ACCOUNT) throw collectionLimitReached();
  const c = createInEngine(
    ctx.db,
    {
      id: newId("mcol"),
      accountId,
      name: input.name.trim(),
      model,
      chunkSize,
      chunkOverlap: input.chunk_overlap ?? defaultOverlap(chunkSize),
      sealText: ctx.config.memory.seal_text,
      metadata: input.metadata,
    },
    ctx.clock.now(),
  );
  return view(ctx, c);
}

export function listCollections(ctx: Context, accountId: string): CollectionView[] {
  return listInEngine(ctx.db, accountId, MAX_COLLECTIONS_LISTED).map((c) => view(ctx, c));
}

export function getCollectionView(ctx: Context, accountId: string, id: string): CollectionView {
  return view(ctx, requireCollection(ctx, accountId, id));
}

/** Hides the collection at once and queues the removal of its rows (chunks, vectors, keyword rows, documents). */
export function deleteCollection(ctx: Context, accountId: string, id: string): void {
  const c = requireCollection(ctx, accountId, id);
  ctx.tx.run(() => {
    if (!markCollectionDeleted(ctx.db, c, ctx.clock.now())) throw notFound("collection");
    ctx.scheduler.schedule(PURGE_JOB, { collection_key: c.key }, { uniqueKey: `${PURGE_JOB}:${c.key}` });
  });
}

/**
 * Removes deleted collections' rows, a batch per transaction, yielding between batches so
 * requests keep being served. One collection when `collectionKey` is given, else every one
 * marked deleted (the job's payload may be lost to nothing: a later run picks them all up).
 */
export async function purgeDeleted(ctx: Context, collectionKey?: number, signal?: AbortSignal): Promise<number> {
  const keys = collectionKey !== undefined ? [collectionKey] : collectionsToPurge(ctx.db);
  let purged = 0;
  for (const key of keys) {
    while (!purgeCollection(ctx.db, key, PURGE_BATCH)) {
      if (signal?.aborted) throw new Error("purge interrupted; the job runs again");
      await new Promise((resolve) => setImmediate(resolve));
    }
    purged++;
  }
  return purged;
}

/** The one embedding call of a request: billed on the caller's key; vectors of the wrong size refused unbilled. */
async function embed(ctx: Context, principal: ApiKeyPrincipal, c: Collection, input: string[], signal?: AbortSignal, runId?: string | null): Promise<MeteredEmbeddings> {
  return embedMetered(ctx, principal, {
    model: c.model,
    input,
    signal,
    runId,
    accept: (vectors) => {
      const size = vectors[0]!.length;
      if (vectors.some((v) => v.length !== size)) throw new ApiError(502, "embedding_failed", `model ${c.model} answered with embeddings of different sizes in one call`);
      if (c.dimension !== null && size !== c.dimension) throw modelDimensionChanged(c, size);
    },
  });
}

const billed = (e: MeteredEmbeddings): Billed => ({ usage: { embedding_tokens: e.input_tokens, cost_micro_usd: e.cost_micro_usd }, headers: e.headers, settlement: e.settlement });

export interface DocumentInput {
  id?: string;
  text: string;
  metadata?: Metadata;
}

export async function addDocuments(
  ctx: Context,
  principal: ApiKeyPrincipal,
  collectionId: string,
  documents: DocumentInput[],
  signal?: AbortSignal,
): Promise<{ collection_id: string; documents: { id: string; chunks: number; tokens: number }[] } & Billed> {
  const c = requireCollection(ctx, principal.accountId, collectionId);
  const seen = new Map<string, number>();
  const prepared = documents.map((d, i) => {
    const id = d.id ?? newId("doc");
    const earlier = seen.get(id);
    if (earlier !== undefined) throw invalidField(`documents[${i}].id`, `repeats documents[${earlier}].id; each document once per request`);
    seen.set(id, i);
    checkMetadataSize(d.metadata, `documents[${i}].metadata`);
    return prepareDocument(c, { docId: id, text: d.text, metadata: d.metadata }, `documents[${i}]`);
  });
  const texts = prepared.flatMap((d) => d.chunks.map((chunk) => chunk.text));
  if (texts.length > MAX_CHUNKS_PER_REQUEST) {
    throw invalidField("documents", `cut into ${texts.length} chunks; at most ${MAX_CHUNKS_PER_REQUEST} per request (one embeddings call): send fewer documents per request`);
  }
  const embedded = texts.length ? await embed(ctx, principal, c, texts, signal) : null;
  let at = 0;
  const stored = storeDocuments(
    ctx.db,
    c,
    prepared.map((doc) => {
      const vectors = embedded ? embedded.vectors.slice(at, at + doc.chunks.length) : [];
      at += doc.chunks.length;
      return { doc, vectors };
    }),
    { sealer: c.sealText ? ctx.sealer : undefined, now: ctx.clock.now() },
  );
  return {
    collection_id: c.id,
    documents: stored.map((s) => ({ id: s.document_id, chunks: s.chunks, tokens: s.tokens })),
    ...(embedded ? billed(embedded) : FREE),
  };
}

export function deleteDocument(ctx: Context, accountId: string, collectionId: string, docId: string): void {
  const c = requireCollection(ctx, accountId, collectionId);
  deleteInEngine(ctx.db, c, docId);
}

export interface SearchInput {
  query: string;
  top_k?: number;
  filter?: MetadataFilter;
  mode?: SearchMode;
  /** The run the query's embedding receipt is chained into (a hosted agent's run). */
  runId?: string | null;
}

export interface SearchResult {
  document_id: string;
  chunk_id: string;
  chunk_index: number;
  score: number;
  text: string;
  metadata: Metadata;
}

export async function searchCollection(
  ctx: Context,
  principal: ApiKeyPrincipal,
  collectionId: string,
  input: SearchInput,
  signal?: AbortSignal,
): Promise<{ collection_id: string; mode: SearchMode; results: SearchResult[] } & Billed> {
  const c = requireCollection(ctx, principal.accountId, collectionId);
  const mode: SearchMode = input.mode ?? (c.sealText ? "vector" : "hybrid");
  // Refused before anything is embedded (and billed).
  if (mode !== "vector" && c.sealText) throw keywordSearchUnavailable(c.id);
  checkFilter(input.filter);
  const topK = input.top_k ?? DEFAULT_TOP_K;
  const answer = (results: SearchResult[], bill: Billed) => ({ collection_id: c.id, mode, results, ...bill });
  // Nothing to find: no embedding is bought for it.
  if (collectionStats(ctx.db, c).chunks === 0) return answer([], FREE);
  const embedded = mode === "keyword" ? null : await embed(ctx, principal, c, [input.query], signal, input.runId);
  // The collection may have been deleted while the query was embedded: then it is not found.
  const current = requireCollection(ctx, principal.accountId, collectionId);
  const hits = search(
    ctx.db,
    current,
    { mode, queryText: input.query, queryVector: embedded?.vectors[0], topK, filter: input.filter },
    { sealer: current.sealText ? ctx.sealer : undefined },
  );
  const results = hits.map((h) => ({ document_id: h.document_id, chunk_id: h.chunk_id, chunk_index: h.chunk_index, score: h.score, text: h.text, metadata: h.metadata }));
  return answer(results, embedded ? billed(embedded) : FREE);
}

/** For operators (svc memory stats): an account's collections with their totals. */
export function memoryUsage(ctx: Context, accountId: string): { collections: CollectionView[]; totals: { collections: number; documents: number; chunks: number; tokens: number; limit: number } } {
  const collections = listCollections(ctx, accountId);
  const sum = (k: "documents" | "chunks" | "tokens") => collections.reduce((n, c) => n + c[k], 0);
  return { collections, totals: { collections: collections.length, documents: sum("documents"), chunks: sum("chunks"), tokens: sum("tokens"), limit: MAX_COLLECTIONS_PER_ACCOUNT } };
}
