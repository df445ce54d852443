-- 0022: batches (spec §4.3 "Files and batches", §3 batch rows, §6 batch_completed and
-- batch_failed; docs/batches.md). A batch runs its input file's lines through the inference
-- pipeline under the key that created it. batch_lines holds one row per line that was started:
-- the row is committed before the line's upstream call, so a line is never run twice; a line
-- still "running" when svc starts again was cut off and ends failed as interrupted. Its
-- result is written in the same transaction as its settle (receipt_id, cost), so a billed line
-- always has its output. Line content lives in the files area (sealed), never here.
-- owner batches: batches, batch_lines

CREATE TABLE batches (
  -- Creation order for the listing and its after= cursor (an INTEGER PRIMARY KEY survives VACUUM).
  seq                INTEGER PRIMARY KEY,
  id                 TEXT NOT NULL UNIQUE,
  account_id         TEXT NOT NULL REFERENCES accounts (id),
  key_id             TEXT NOT NULL,
  input_file_id      TEXT NOT NULL,
  endpoint           TEXT NOT NULL,
  completion_window  TEXT NOT NULL,
  metadata           TEXT,
  status             TEXT NOT NULL CHECK (status IN ('validating', 'in_progress', 'finalizing', 'completed', 'failed', 'expired', 'cancelling', 'cancelled')),
  -- Why a running batch is stopping (expired, or a batch-level failure's error class); NULL while it runs on.
  stop_reason        TEXT,
  error_class        TEXT,
  error_message      TEXT,
  total              INTEGER NOT NULL CHECK (total >= 0),
  completed          INTEGER NOT NULL DEFAULT 0,
  failed             INTEGER NOT NULL DEFAULT 0,
  cost_micro_usd     INTEGER NOT NULL DEFAULT 0 CHECK (cost_micro_usd >= 0),
  input_tokens       INTEGER NOT NULL DEFAULT 0,
  output_tokens      INTEGER NOT NULL DEFAULT 0,
  -- Allocated at creation; the files rows exist (and the batch shows them) once it ends.
  output_file_id     TEXT NOT NULL,
  error_file_id      TEXT NOT NULL,
  output_ready       INTEGER NOT NULL DEFAULT 0,
  error_ready        INTEGER NOT NULL DEFAULT 0,
  created_at         INTEGER NOT NULL,
  in_progress_at     INTEGER,
  finalizing_at      INTEGER,
  completed_at       INTEGER,
  failed_at          INTEGER,
  expired_at         INTEGER,
  cancelling_at      INTEGER,
  cancelled_at       INTEGER,
  expires_at         INTEGER NOT NULL
);
CREATE INDEX batches_account ON batches (account_id);
CREATE UNIQUE INDEX batches_input_file ON batches (input_file_id);

CREATE TABLE batch_lines (
  batch_id         TEXT NOT NULL,
  line_no          INTEGER NOT NULL,
  state            TEXT NOT NULL CHECK (state IN ('running', 'succeeded', 'failed')),
  status_code      INTEGER,
  error_type       TEXT,
  receipt_id       TEXT,
  cost_micro_usd   INTEGER NOT NULL DEFAULT 0,
  started_at       INTEGER NOT NULL,
  finished_at      INTEGER,
  PRIMARY KEY (batch_id, line_no)
) WITHOUT ROWID;
