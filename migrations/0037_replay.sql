-- 0037: replay (spec §4.4 "Replay"; docs/replay.md). A capsule seals what is needed to run a
-- chat call again — the request as sent upstream, the model, the parameters — after checking
-- the re-supplied request against the call's content-free receipt. The sealed request is
-- AES-256-GCM with the AAD bound to the capsule; DELETE overwrites it with NULL and keeps the
-- row (its fingerprints, the original receipt, the replays). Each replay runs through the
-- metered pipeline and records its receipt and whether its output matched the original's.
-- owner replay: replay_capsules, replay_runs

CREATE TABLE replay_capsules (
  -- Creation order for the listing (newest first), stable within one millisecond.
  seq                     INTEGER PRIMARY KEY,
  id                      TEXT NOT NULL UNIQUE,
  account_id              TEXT NOT NULL REFERENCES accounts (id),
  -- The original call's receipt, as signed (metadata only).
  receipt_id              TEXT NOT NULL,
  receipt                 TEXT NOT NULL,
  signature               TEXT NOT NULL,
  signer                  TEXT NOT NULL,
  run_id                  TEXT,
  -- The model that served the original call: a replay asks for exactly it.
  model                   TEXT NOT NULL,
  message_count           INTEGER NOT NULL CHECK (message_count >= 1),
  -- JSON {max_tokens, temperature, json}: parameters, not content.
  parameters              TEXT NOT NULL,
  request_sha256          TEXT NOT NULL CHECK (length(request_sha256) = 64),
  -- The original output's fingerprint as the caller stated it (the receipt holds none).
  output_sha256           TEXT NOT NULL CHECK (length(output_sha256) = 64),
  context_root            TEXT,
  source_set_id           TEXT,
  source_set_fingerprint  TEXT,
  -- The request, sealed; NULL once destroyed (destroyed_at set in the same statement).
  sealed                  TEXT,
  destroyed_at            INTEGER,
  created_at              INTEGER NOT NULL,
  CHECK ((sealed IS NULL) = (destroyed_at IS NOT NULL))
);
-- GET /v1/replay/capsules: one account's, newest first; the per-account count.
CREATE INDEX replay_capsules_account ON replay_capsules (account_id, seq DESC);

CREATE TABLE replay_runs (
  seq            INTEGER PRIMARY KEY,
  capsule_id     TEXT NOT NULL REFERENCES replay_capsules (id),
  -- The replay call's receipt (kind inference, minted by its settle).
  receipt_id     TEXT NOT NULL,
  output_sha256  TEXT NOT NULL CHECK (length(output_sha256) = 64),
  matches        INTEGER NOT NULL CHECK (matches IN (0, 1)),
  created_at     INTEGER NOT NULL
);
CREATE INDEX replay_runs_capsule ON replay_runs (capsule_id, seq DESC);
