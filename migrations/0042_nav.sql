-- owner nav: nav_records, nav_public_assets
-- 0042: NAV records (spec §2.5; docs/nav.md). Each calculation, restatement or revaluation of an
-- asset is a new version (seq) of the owner's asset; a version is never updated except to be
-- published. The signed payload is kept as the exact statement that was signed (it is the
-- record); the holdings book, its salt and its sources are sealed and never served.

CREATE TABLE nav_records (
  id              TEXT PRIMARY KEY,                         -- nav_…
  account_id      TEXT NOT NULL,
  key_id          TEXT,
  asset_id        TEXT NOT NULL,
  seq             INTEGER NOT NULL CHECK (seq >= 1),
  status          TEXT NOT NULL CHECK (status IN ('VERIFIED', 'STALE', 'UNAVAILABLE', 'DISCREPANCY')),
  statement       TEXT NOT NULL,                            -- base64url canonical JSON of the payload
  signature       TEXT NOT NULL,
  signer          TEXT NOT NULL,
  -- [{source_kind, source_ref, label, retrieved_at, content_sha256}]: the evidence route's
  -- references (the payload's, with the owner's labels).
  evidence        TEXT NOT NULL,
  book_sealed     TEXT NOT NULL,                            -- sealed JSON (AAD nav-book:<account>:<id>)
  created_at      INTEGER NOT NULL,
  published_at    INTEGER,
  UNIQUE (account_id, asset_id, seq)
);

-- The public namespace: GET /v1/nav/:asset_id needs one owner per asset id, so the first account
-- to publish a record of an asset id holds that id for good (asset ids are otherwise per account).
CREATE TABLE nav_public_assets (
  asset_id        TEXT PRIMARY KEY,
  account_id      TEXT NOT NULL,
  claimed_at      INTEGER NOT NULL
);
