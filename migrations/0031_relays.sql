-- 0031: relays (spec §4.4 "Relays", §4.1 relay access, §3 Relay row, §5 rule 3; docs/relays.md).
-- A relay is a share link to one or more objects (text or files). The link's secret is shown
-- once and kept only as sha256; each object's bytes are sealed with the master key (AAD bound
-- to the relay and the object). An optional pin is kept only as an HMAC keyed by the link's
-- secret, so the database alone cannot be used to guess it. Revoking (and expiry, the access
-- cap, a pin locked by failures) destroys the ciphertext: `sealed` becomes NULL and the rows
-- stay as content-free history until the purge job drops them 30 days after the relay ended.
-- An access token (relay_access_tokens) lets whoever opened the relay fetch its objects for a
-- short window without spending another access.
-- owner relays: relays, relay_objects, relay_access_tokens

CREATE TABLE relays (
  -- Creation order for the listing (newest first), stable within one millisecond.
  seq                   INTEGER PRIMARY KEY,
  id                    TEXT NOT NULL UNIQUE,
  account_id            TEXT NOT NULL REFERENCES accounts (id),
  name                  TEXT,
  secret_sha256         TEXT NOT NULL UNIQUE CHECK (length(secret_sha256) = 64),
  -- HMAC-SHA256(key = the link's secret, the pin), hex; NULL when no pin is set.
  pin_mac               TEXT CHECK (pin_mac IS NULL OR length(pin_mac) = 64),
  pin_failures          INTEGER NOT NULL DEFAULT 0 CHECK (pin_failures >= 0),
  view_only             INTEGER NOT NULL CHECK (view_only IN (0, 1)),
  -- NULL: no cap (the expiry alone ends the relay).
  max_accesses          INTEGER CHECK (max_accesses IS NULL OR max_accesses >= 1),
  accesses              INTEGER NOT NULL DEFAULT 0 CHECK (accesses >= 0 AND (max_accesses IS NULL OR accesses <= max_accesses)),
  object_count          INTEGER NOT NULL CHECK (object_count >= 1),
  total_bytes           INTEGER NOT NULL CHECK (total_bytes >= 0),
  created_at            INTEGER NOT NULL,
  expires_at            INTEGER NOT NULL,
  last_accessed_at      INTEGER,
  -- The latest expiry of an access token: a capped relay's content stays until it passes.
  open_until            INTEGER,
  revoked_at            INTEGER,
  content_destroyed_at  INTEGER,
  -- revoked, expired, exhausted or locked (too many wrong pins).
  destroy_reason        TEXT CHECK (destroy_reason IS NULL OR destroy_reason IN ('revoked', 'expired', 'exhausted', 'locked'))
);
-- GET /v1/relays: one account's, newest first; the live count for the per-account cap.
CREATE INDEX relays_account ON relays (account_id, seq DESC);
-- The purge job: relays whose content is still held, by expiry.
CREATE INDEX relays_live_expiry ON relays (expires_at) WHERE content_destroyed_at IS NULL;

CREATE TABLE relay_objects (
  id            TEXT PRIMARY KEY,
  relay_id      TEXT NOT NULL REFERENCES relays (id),
  -- Order as given at creation.
  position      INTEGER NOT NULL,
  name          TEXT NOT NULL,
  content_type  TEXT NOT NULL,
  bytes         INTEGER NOT NULL CHECK (bytes >= 0),
  -- core/seal.ts text of the object's bytes; NULL once the relay's content was destroyed.
  sealed        TEXT,
  UNIQUE (relay_id, position)
);

CREATE TABLE relay_access_tokens (
  token_sha256  TEXT PRIMARY KEY CHECK (length(token_sha256) = 64),
  relay_id      TEXT NOT NULL REFERENCES relays (id),
  expires_at    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX relay_access_tokens_relay ON relay_access_tokens (relay_id);
