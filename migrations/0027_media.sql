-- 0027: media (spec §4.3 "Payments and media" image and video lines, §2.6 video job, §3 video
-- job rows; docs/media.md). A video job is a row from its 202 to its end: the hold taken for
-- the longest duration (the reservation, JSON, until settled or released), the provider's job
-- id to poll, then the outcome — what was billed, the receipt, and the delivered asset's
-- fingerprint and C2PA check. Assets (video content, images served by URL) are sealed files in
-- <data_dir>/media/, one row each here, destroyed at their expiry or on DELETE; the row stays.
-- owner media: video_jobs, media_assets

CREATE TABLE media_assets (
  id            TEXT PRIMARY KEY,
  account_id    TEXT NOT NULL REFERENCES accounts (id),
  mime          TEXT NOT NULL,
  bytes         INTEGER NOT NULL CHECK (bytes >= 0),
  sha256        TEXT NOT NULL CHECK (length(sha256) = 64),
  -- Public capability for images served by URL: sha256 of the token in the URL; NULL = owner only.
  token_sha256  TEXT UNIQUE,
  created_at    INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  -- Set when the sealed file is destroyed (expiry sweep or DELETE); the row is kept.
  destroyed_at  INTEGER
);
CREATE INDEX media_assets_live ON media_assets (expires_at) WHERE destroyed_at IS NULL;

CREATE TABLE video_jobs (
  -- Creation order for the listing (newest first).
  seq                 INTEGER PRIMARY KEY,
  id                  TEXT NOT NULL UNIQUE,
  account_id          TEXT NOT NULL REFERENCES accounts (id),
  key_id              TEXT REFERENCES api_keys (id),
  run_id              TEXT,
  model               TEXT NOT NULL,
  -- The provider that accepted the job, and its job id there (the row is written once it has one).
  provider            TEXT NOT NULL,
  upstream_id         TEXT NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled', 'expired')),
  progress            INTEGER NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
  -- The duration asked for; billed_seconds is what was billed (the provider's own, never more).
  seconds             INTEGER NOT NULL CHECK (seconds > 0),
  size                TEXT,
  image_input         INTEGER NOT NULL DEFAULT 0 CHECK (image_input IN (0, 1)),
  price_micro_usd_per_second INTEGER NOT NULL CHECK (price_micro_usd_per_second >= 0),
  reserved_micro_usd  INTEGER NOT NULL CHECK (reserved_micro_usd >= 0),
  -- The meter's reservation (JSON) while the hold is open; NULL once settled or released.
  reservation         TEXT,
  -- The prompt, sealed, only when the caller asked for it in the manifest; NULL once finished.
  provenance_prompt   TEXT,
  cost_micro_usd      INTEGER NOT NULL DEFAULT 0 CHECK (cost_micro_usd >= 0),
  billed_seconds      INTEGER,
  billed              INTEGER NOT NULL DEFAULT 0 CHECK (billed IN (0, 1)),
  -- Chosen before the manifest is signed (the manifest cites it), then the receipt as signed.
  receipt_id          TEXT,
  receipt             TEXT,
  receipt_signature   TEXT,
  receipt_signer      TEXT,
  asset_id            TEXT REFERENCES media_assets (id),
  asset_sha256        TEXT,
  -- JSON: the C2PA manifest check of the delivered asset (signer, receipt id, model, created_at).
  provenance          TEXT,
  -- JSON {code, message} when failed, canceled or expired.
  error               TEXT,
  created_at          INTEGER NOT NULL,
  -- Unfinished past this: expired, its hold released.
  deadline_at         INTEGER NOT NULL,
  finished_at         INTEGER
);
CREATE INDEX video_jobs_account ON video_jobs (account_id, seq);
CREATE INDEX video_jobs_unfinished ON video_jobs (deadline_at) WHERE status IN ('queued', 'running');
