-- 0038: engine builds (spec §2.6 "Engine build", §3 engine rows, §4.4 Engine; docs/engine.md).
-- A build is one version of an account's engine: a pinned catalogue model, a system prompt and
-- parameters (the spec), fingerprinted by spec_sha256 over its canonical JSON. draft →
-- published → retired; at most one version of a slug is published, and `engine/<slug>` in
-- inference resolves to it for the owning account only.
-- owner engine: engine_builds

CREATE TABLE engine_builds (
  -- Creation order for the listing (newest first), stable within one millisecond.
  seq           INTEGER PRIMARY KEY,
  id            TEXT NOT NULL UNIQUE,
  account_id    TEXT NOT NULL REFERENCES accounts (id),
  slug          TEXT NOT NULL,
  -- 1, 2, 3 … per (account, slug): the number `engine/<slug>@<version>` pins.
  version       INTEGER NOT NULL CHECK (version >= 1),
  -- The pinned catalogue model, in clear for listing; the spec below holds it too.
  model         TEXT NOT NULL,
  -- The spec's canonical JSON (it holds the system prompt), sealed at rest.
  spec_sealed   TEXT NOT NULL,
  spec_sha256   TEXT NOT NULL CHECK (length(spec_sha256) = 64),
  status        TEXT NOT NULL CHECK (status IN ('draft', 'published', 'retired')),
  created_at    INTEGER NOT NULL,
  published_at  INTEGER,
  retired_at    INTEGER,
  UNIQUE (account_id, slug, version)
);
-- GET /v1/engine/builds: one account's, newest first.
CREATE INDEX engine_builds_account ON engine_builds (account_id, seq DESC);
-- The spec's rule, kept by the database too: at most one published version per slug.
CREATE UNIQUE INDEX engine_builds_published ON engine_builds (account_id, slug) WHERE status = 'published';
