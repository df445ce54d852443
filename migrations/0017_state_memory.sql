-- 0017: sealed state and memory collections (docs/state.md, docs/memory.md).
-- owner state: state_entries
-- owner memory: memory_collections, memory_documents, memory_chunks, memory_fts
--
-- State: one row per (account, namespace, key). The value is sealed (core/seal.ts, AES-256-GCM,
-- AAD bound to account, namespace and key): its plaintext is never written to this file, its WAL
-- or a replica. Keys and namespaces are in clear (they are listed and looked up).
--
-- Memory: documents cut into chunks, each chunk with its embedding (exact float32, for
-- re-ranking), a quantised code in a vec0 table (the vector index) and its words in an FTS5 table
-- (the keyword index). The vec0 tables are one per embedding dimension (memory_vectors_<d>),
-- created by the memory area the first time a collection of that dimension gets a vector, so this
-- file holds none; every connection that touches them loads sqlite-vec first (the memory
-- module's sqliteExtensions, loaded before migrations run).

CREATE TABLE state_entries (
  account_id  TEXT NOT NULL,
  namespace   TEXT NOT NULL,
  key         TEXT NOT NULL,
  value       TEXT NOT NULL,                     -- sealed JSON text: "v1.<key id>.<base64url>"
  value_bytes INTEGER NOT NULL,                  -- UTF-8 bytes of the JSON text before sealing
  version     INTEGER NOT NULL CHECK (version >= 1),
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  PRIMARY KEY (account_id, namespace, key)
) WITHOUT ROWID;

CREATE TABLE memory_collections (
  key           INTEGER PRIMARY KEY AUTOINCREMENT, -- internal: vec0 partition key and FTS5 term prefix
  id            TEXT NOT NULL UNIQUE,              -- public id (mcol_…)
  account_id    TEXT NOT NULL,
  name          TEXT NOT NULL,
  model         TEXT NOT NULL,                     -- the embedding model, fixed for the collection's life
  -- Fixed by the first vectors stored (or given at creation); NULL until then.
  dimension     INTEGER CHECK (dimension IS NULL OR dimension BETWEEN 1 AND 4096),
  chunk_size    INTEGER NOT NULL,                  -- tokens per chunk (o200k_base)
  chunk_overlap INTEGER NOT NULL,
  seal_text     INTEGER NOT NULL DEFAULT 0 CHECK (seal_text IN (0, 1)),
  metadata      TEXT NOT NULL DEFAULT '{}',        -- the caller's JSON object, in clear
  -- Running totals, kept in the same transactions as the rows they count: search reads the
  -- chunk count on every query (it sizes the candidate set) and must not sum documents for it.
  documents     INTEGER NOT NULL DEFAULT 0,
  chunks        INTEGER NOT NULL DEFAULT 0,
  tokens        INTEGER NOT NULL DEFAULT 0,
  text_bytes    INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL,
  -- Set by DELETE: the collection is gone for its owner at once; a job removes its rows in batches.
  deleted_at    INTEGER
);
CREATE INDEX memory_collections_account ON memory_collections (account_id, created_at) WHERE deleted_at IS NULL;
CREATE INDEX memory_collections_deleted ON memory_collections (deleted_at) WHERE deleted_at IS NOT NULL;

CREATE TABLE memory_documents (
  key            INTEGER PRIMARY KEY AUTOINCREMENT,
  collection_key INTEGER NOT NULL REFERENCES memory_collections (key),
  doc_id         TEXT NOT NULL,                    -- the caller's id; adding it again replaces the document
  metadata       TEXT NOT NULL DEFAULT '{}',       -- JSON object, in clear (filters read it)
  chunk_count    INTEGER NOT NULL,
  token_count    INTEGER NOT NULL,
  text_bytes     INTEGER NOT NULL,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  UNIQUE (collection_key, doc_id)
);

CREATE TABLE memory_chunks (
  id             INTEGER PRIMARY KEY AUTOINCREMENT, -- also the rowid of the chunk in the vec0 and FTS5 tables
  collection_key INTEGER NOT NULL REFERENCES memory_collections (key),
  document_key   INTEGER NOT NULL REFERENCES memory_documents (key),
  ordinal        INTEGER NOT NULL,                  -- position in the document, from 0
  text           TEXT NOT NULL,                     -- clear, or sealed ("v1.<key id>.<…>") when the collection seals text
  token_count    INTEGER NOT NULL,
  embedding      BLOB NOT NULL,                     -- float32 little-endian, L2-normalised, dimension × 4 bytes
  UNIQUE (document_key, ordinal)
);
CREATE INDEX memory_chunks_collection ON memory_chunks (collection_key);

-- Contentless: the words are indexed, the text is read from memory_chunks. Each word carries its
-- collection's prefix (engine/keyword-index.ts), which is why the ascii tokenizer, not unicode61.
CREATE VIRTUAL TABLE memory_fts USING fts5 (words, content = '', contentless_delete = 1, tokenize = 'ascii');
