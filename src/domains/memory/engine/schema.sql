-- Memory collections: documents cut into chunks, each chunk with its embedding (exact float32,
-- for re-ranking), a quantised code in a vec0 table (the vector index) and its words in an FTS5
-- table (the keyword index). Turned into a numbered migration by whoever numbers migrations.
--
-- The vec0 tables are one per embedding dimension (memory_vectors_<dimension>), created by
-- createCollection (vector-index.ts) the first time a collection of that dimension appears, so
-- this file holds none; the connection that creates them, like every connection that reads or
-- writes them, must have loaded sqlite-vec first (vector-extension.ts).

CREATE TABLE memory_collections (
  key           INTEGER PRIMARY KEY AUTOINCREMENT, -- internal: vec0 partition key and FTS5 term prefix
  id            TEXT NOT NULL UNIQUE,              -- public id, chosen by the caller
  account_id    TEXT NOT NULL,
  name          TEXT NOT NULL,
  model         TEXT NOT NULL,                     -- the embedding model, fixed for the collection's life
  dimension     INTEGER NOT NULL CHECK (dimension BETWEEN 1 AND 4096),
  chunk_size    INTEGER NOT NULL,                  -- tokens per chunk (o200k_base)
  chunk_overlap INTEGER NOT NULL,
  seal_text     INTEGER NOT NULL DEFAULT 0 CHECK (seal_text IN (0, 1)),
  -- Running totals, kept in the same transactions as the rows they count: search reads the
  -- chunk count on every query (it sizes the candidate set) and must not sum documents for it.
  documents     INTEGER NOT NULL DEFAULT 0,
  chunks        INTEGER NOT NULL DEFAULT 0,
  tokens        INTEGER NOT NULL DEFAULT 0,
  text_bytes    INTEGER NOT NULL DEFAULT 0,
  created_at    INTEGER NOT NULL
);
CREATE INDEX memory_collections_account ON memory_collections (account_id, created_at);

CREATE TABLE memory_documents (
  key            INTEGER PRIMARY KEY AUTOINCREMENT,
  collection_key INTEGER NOT NULL REFERENCES memory_collections (key),
  doc_id         TEXT NOT NULL,                    -- the caller's id; upserting it again replaces the document
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
-- collection's prefix (keyword-index.ts), which is why the ascii tokenizer, not unicode61.
CREATE VIRTUAL TABLE memory_fts USING fts5 (words, content = '', contentless_delete = 1, tokenize = 'ascii');
