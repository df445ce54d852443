-- 0036: sources (spec §4.4 "Sources", §4.1 GET /v1/sources/public/:id; docs/sources.md). A
-- source set is a named, immutable list of sources (url and/or sha256, label, kind) with a
-- fingerprint: sha256 of the canonical JSON of its entries. An inference request cites a set
-- with svc_source_set, and the call's receipt states the set's id and fingerprint. DELETE
-- removes the row; receipts that cited the set keep its fingerprint.
-- owner sources: source_sets

CREATE TABLE source_sets (
  -- Creation order for the listing (newest first), stable within one millisecond.
  seq          INTEGER PRIMARY KEY,
  id           TEXT NOT NULL UNIQUE,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  name         TEXT NOT NULL,
  -- JSON array of the entries exactly as fingerprinted: {kind, label, url?, sha256?}.
  entries      TEXT NOT NULL,
  entry_count  INTEGER NOT NULL CHECK (entry_count >= 1),
  fingerprint  TEXT NOT NULL CHECK (length(fingerprint) = 64),
  -- 1: GET /v1/sources/public/:id shows the set to anyone. Chosen at creation.
  public       INTEGER NOT NULL CHECK (public IN (0, 1)),
  created_at   INTEGER NOT NULL
);
-- GET /v1/sources/sets: one account's, newest first; the per-account count.
CREATE INDEX source_sets_account ON source_sets (account_id, seq DESC);
