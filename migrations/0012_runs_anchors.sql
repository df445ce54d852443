-- 0012: runs, Merkle roots over receipts, their anchors, and svc's own signed log of roots.
-- owner anchors: merkle_roots, merkle_leaves, receipt_batches, anchors, anchor_log
-- owner runs: run_roots

-- GET /v1/runs groups an account's receipts by run id.
CREATE INDEX receipts_account_run ON receipts (account_id, run_id, seq) WHERE run_id IS NOT NULL;

-- A Merkle root (RFC 6962, lowercase hex) over an ordered list of receipts. The root names the
-- tree: the same leaves in the same order give the same root, so a run's root and a batch root
-- holding the same receipts are one row (and one set of anchors).
CREATE TABLE merkle_roots (
  root       TEXT PRIMARY KEY,
  tree_size  INTEGER NOT NULL CHECK (tree_size > 0),
  created_at INTEGER NOT NULL
);

-- The ordered leaves of a root. leaf_hash is kept, not recomputed from the receipt, so a root
-- stays checkable after its receipts are gone (retention).
CREATE TABLE merkle_leaves (
  root       TEXT NOT NULL REFERENCES merkle_roots (root),
  position   INTEGER NOT NULL,
  receipt_id TEXT NOT NULL,
  leaf_hash  TEXT NOT NULL,
  PRIMARY KEY (root, position)
) WITHOUT ROWID;

-- Roots computed for a run (POST /v1/runs/:id/proof). A run grows, so it may have several,
-- one per size it had when a proof was asked for. Run ids are the client's, scoped per account.
CREATE TABLE run_roots (
  account_id TEXT NOT NULL REFERENCES accounts (id),
  run_id     TEXT NOT NULL,
  root       TEXT NOT NULL REFERENCES merkle_roots (root),
  tree_size  INTEGER NOT NULL,
  -- The run's newest receipt the root covers: with tree_size, tells whether it covers them all.
  last_receipt_seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, run_id, root)
);

-- Periodic batches of every receipt minted: receipts with seq in [first_receipt_seq,
-- last_receipt_seq]. The next batch starts after the highest last_receipt_seq.
CREATE TABLE receipt_batches (
  seq               INTEGER PRIMARY KEY AUTOINCREMENT,
  root              TEXT NOT NULL REFERENCES merkle_roots (root),
  first_receipt_seq INTEGER NOT NULL,
  last_receipt_seq  INTEGER NOT NULL UNIQUE,
  created_at        INTEGER NOT NULL
);

-- One anchor per root per backend. log: an entry of anchor_log, anchored when written.
-- evm: pending (not broadcast yet) → submitted (signed and broadcast; raw_tx kept so the very
-- same transaction can be re-broadcast) → anchored (has its confirmations).
CREATE TABLE anchors (
  id           TEXT PRIMARY KEY,
  root         TEXT NOT NULL REFERENCES merkle_roots (root),
  backend      TEXT NOT NULL CHECK (backend IN ('log', 'evm')),
  status       TEXT NOT NULL CHECK (status IN ('pending', 'submitted', 'anchored')),
  -- Exactly what the anchor carries: <prefix>:v1:<root> (the prefix as configured when it was made).
  memo         TEXT NOT NULL,
  -- log: the anchor_log entry id; evm: the transaction hash (NULL while pending).
  external_id  TEXT,
  chain        TEXT,
  chain_id     INTEGER,
  nonce        INTEGER,
  raw_tx       TEXT,
  block_number INTEGER,
  attempts     INTEGER NOT NULL DEFAULT 0,
  last_error   TEXT,
  created_at   INTEGER NOT NULL,
  submitted_at INTEGER,
  confirmed_at INTEGER,
  UNIQUE (root, backend)
);
CREATE INDEX anchors_open ON anchors (backend, status, created_at) WHERE status != 'anchored';
CREATE INDEX anchors_created ON anchors (created_at);

-- svc's signed append-only log of roots. Each entry is a signed statement (EIP-191 by the
-- receipt signer) naming its root and the previous entry's hash: changing or dropping an old
-- entry breaks every later one.
CREATE TABLE anchor_log (
  seq        INTEGER PRIMARY KEY,
  id         TEXT NOT NULL UNIQUE,
  root       TEXT NOT NULL UNIQUE REFERENCES merkle_roots (root),
  statement  TEXT NOT NULL,
  signature  TEXT NOT NULL,
  signer     TEXT NOT NULL,
  -- sha256 (hex) of the previous entry's statement string; 64 zeros for the first entry.
  prev_hash  TEXT NOT NULL,
  -- sha256 (hex) of this entry's statement string.
  entry_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);
