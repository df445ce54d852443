-- 0021: files (spec §4.3 "Files and batches"; docs/batches.md). A file's bytes are kept one
-- JSONL line per row, each sealed with the master key (AAD bound to the file and line), so a
-- batch reads its input a page at a time and writes its results line by line. Every file has a
-- hard expiry; the purge job deletes the row and its lines once it passes. A file's content can
-- also be destroyed before that (an input file once its batch ends): content_purged_at is set,
-- its lines are deleted, and the row stays until it expires.
-- Output files (purpose batch_output) get their lines while their batch runs, under an id the
-- batch allocated; their row is written when the batch ends.
-- owner files: files, file_lines

CREATE TABLE files (
  -- Creation order for listings and their after= cursor (an INTEGER PRIMARY KEY survives VACUUM).
  seq                INTEGER PRIMARY KEY,
  id                 TEXT NOT NULL UNIQUE,
  account_id         TEXT NOT NULL REFERENCES accounts (id),
  purpose            TEXT NOT NULL CHECK (purpose IN ('batch', 'batch_output')),
  filename           TEXT NOT NULL,
  bytes              INTEGER NOT NULL CHECK (bytes >= 0),
  line_count         INTEGER NOT NULL CHECK (line_count >= 0),
  created_at         INTEGER NOT NULL,
  expires_at         INTEGER NOT NULL,
  content_purged_at  INTEGER,
  -- why the content went early: batch_ended (an input file), or NULL.
  purge_reason       TEXT
);
CREATE INDEX files_account ON files (account_id);
CREATE INDEX files_expiry ON files (expires_at);

CREATE TABLE file_lines (
  file_id   TEXT NOT NULL,
  line_no   INTEGER NOT NULL,
  -- Plaintext length in bytes (without the newline), so a file's size is known without opening it.
  bytes     INTEGER NOT NULL,
  sealed    TEXT NOT NULL,
  PRIMARY KEY (file_id, line_no)
) WITHOUT ROWID;
