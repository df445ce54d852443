/**
 * TypeBox models of the memory routes: closed request bodies and the response shapes the
 * OpenAPI document shows. Limits come from limits.ts; docs/memory.md explains them.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import {
  CHUNK_SIZE_RANGE,
  DEFAULT_CHUNK_SIZE,
  DEFAULT_TOP_K,
  DOC_ID_PATTERN,
  DOC_ID_REASON,
  FILTER_KEY_PATTERN,
  MAX_COLLECTIONS_LISTED,
  MAX_DOCUMENTS_PER_REQUEST,
  MAX_FILTER_KEYS,
  MAX_QUERY_CHARS,
  MAX_TOP_K,
  NAME_MAX,
} from "./limits.ts";

const closed = { additionalProperties: false } as const;

const Name = t.String({
  minLength: 1,
  maxLength: NAME_MAX,
  pattern: "^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$",
  error: `must be 1–${NAME_MAX} characters, not blank, without control characters`,
});
const Metadata = t.Record(t.String(), t.Unknown(), { description: "a JSON object, at most 16 KiB as JSON; stored in clear" });
export const DocId = t.String({ pattern: DOC_ID_PATTERN, error: DOC_ID_REASON, description: DOC_ID_REASON });

export const CollectionParams = t.Object({ id: t.String() });
export const DocumentParams = t.Object({ id: t.String(), doc_id: DocId });

export const CreateBody = t.Object(
  {
    name: Name,
    embedding_model: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "an embedding model id from GET /v1/models; default: memory.embedding_model" })),
    chunk_size: t.Optional(
      Int({ minimum: CHUNK_SIZE_RANGE.min, maximum: CHUNK_SIZE_RANGE.max, error: `must be a whole number from ${CHUNK_SIZE_RANGE.min} to ${CHUNK_SIZE_RANGE.max}`, description: `tokens per chunk (o200k_base); default ${DEFAULT_CHUNK_SIZE}` }),
    ),
    chunk_overlap: t.Optional(Int({ minimum: 0, maximum: CHUNK_SIZE_RANGE.max / 2, error: "must be a whole number from 0 to half of chunk_size", description: "tokens a chunk repeats from the one before; default min(64, chunk_size / 8)" })),
    metadata: t.Optional(Metadata),
  },
  closed,
);

export const DocumentsBody = t.Object(
  {
    documents: t.Array(
      t.Object(
        {
          id: t.Optional(DocId),
          text: t.String({ minLength: 1, pattern: "\\S", error: "must be a non-empty string with something other than whitespace" }),
          metadata: t.Optional(Metadata),
        },
        closed,
      ),
      { minItems: 1, maxItems: MAX_DOCUMENTS_PER_REQUEST, error: `must be an array of 1 to ${MAX_DOCUMENTS_PER_REQUEST} documents` },
    ),
  },
  closed,
);

const Scalar = t.Union([t.String(), t.Number(), t.Boolean(), t.Null()]);
export const SearchBody = t.Object(
  {
    query: t.String({ minLength: 1, maxLength: MAX_QUERY_CHARS, pattern: "\\S", error: `must be 1-${MAX_QUERY_CHARS} characters, not blank` }),
    top_k: t.Optional(Int({ minimum: 1, maximum: MAX_TOP_K, error: `must be a whole number from 1 to ${MAX_TOP_K}`, description: `default ${DEFAULT_TOP_K}` })),
    filter: t.Optional(
      t.Record(t.String({ pattern: FILTER_KEY_PATTERN }), Scalar, {
        maxProperties: MAX_FILTER_KEYS,
        error: `must be an object of at most ${MAX_FILTER_KEYS} metadata keys (1-64 of letters, digits, _ . : -), each equal to a string, number, boolean or null`,
        description: "equality on the documents' metadata: every key must equal its value (JSON-typed: \"1\" is not 1)",
      }),
    ),
    mode: t.Optional(
      t.Union([t.Literal("vector"), t.Literal("keyword"), t.Literal("hybrid")], {
        error: "must be one of vector, keyword, hybrid",
        description: "default hybrid (vector for a seal_text collection, which has no keyword index)",
      }),
    ),
  },
  closed,
);

const Time = t.String({ format: "date-time" });

export const Collection = t.Object(
  {
    id: t.String(),
    name: t.String(),
    embedding_model: t.String(),
    dimension: Nullable(Int({ minimum: 1, description: "fixed by the model's first embeddings; null before any document" })),
    chunk_size: Int(),
    chunk_overlap: Int(),
    seal_text: t.Boolean({ description: "chunk text sealed at rest: vector search only" }),
    metadata: t.Record(t.String(), t.Unknown()),
    documents: Int({ minimum: 0 }),
    chunks: Int({ minimum: 0 }),
    tokens: Int({ minimum: 0 }),
    created_at: Time,
  },
  closed,
);

export const CollectionList = t.Object({ collections: t.Array(Collection, { maxItems: MAX_COLLECTIONS_LISTED }) }, closed);
export const CollectionDeleted = t.Object({ id: t.String(), deleted: t.Literal(true) }, closed);

const Usage = t.Object(
  {
    embedding_tokens: Int({ minimum: 0, description: "input tokens billed for the embeddings (0 when nothing was embedded)" }),
    cost_micro_usd: MicroUsd({ description: "what this call debited; its signed receipt is in the x-svc-receipt headers" }),
  },
  closed,
);

export const DocumentsAdded = t.Object(
  {
    collection_id: t.String(),
    documents: t.Array(t.Object({ id: t.String(), chunks: Int({ minimum: 0 }), tokens: Int({ minimum: 0 }) }, closed)),
    usage: Usage,
  },
  closed,
);

export const DocumentDeleted = t.Object({ collection_id: t.String(), document_id: t.String(), deleted: t.Literal(true) }, closed);

export const SearchResults = t.Object(
  {
    collection_id: t.String(),
    mode: t.Union([t.Literal("vector"), t.Literal("keyword"), t.Literal("hybrid")]),
    results: t.Array(
      t.Object(
        {
          document_id: t.String(),
          chunk_id: t.String({ description: "<document id>#<chunk index>" }),
          chunk_index: Int({ minimum: 0 }),
          score: t.Number({ description: "vector: cosine similarity; keyword: bm25, higher is better; hybrid: reciprocal-rank fusion" }),
          text: t.String(),
          metadata: t.Record(t.String(), t.Unknown()),
        },
        closed,
      ),
    ),
    usage: Usage,
  },
  closed,
);
