-- 0006: mandates (bounded spending mandates, each backed by a constrained API key) and ghost
-- sessions (ephemeral API keys for short-lived agents). docs/mandates.md, docs/ghosts.md.
-- The keys (api_keys, kind 'mandate' / 'ghost') carry the controls the meter enforces; these
-- rows are the records of what was granted.
-- owner mandates: mandates
-- owner ghosts: ghost_sessions

-- A mandate's terms are written once, with its key, and never changed. Spend is the key's
-- (api_keys.total_spent_micro_usd); status is derived at read time from the clock, the key and
-- revoked_at.
CREATE TABLE mandates (
  id                    TEXT PRIMARY KEY,
  account_id            TEXT NOT NULL REFERENCES accounts (id),
  key_id                TEXT NOT NULL UNIQUE REFERENCES api_keys (id),
  name                  TEXT CHECK (name IS NULL OR length(name) BETWEEN 1 AND 100),
  purpose               TEXT NOT NULL CHECK (length(purpose) BETWEEN 1 AND 500),
  budget_micro_usd      INTEGER NOT NULL CHECK (budget_micro_usd >= 1),
  monthly_cap_micro_usd INTEGER CHECK (monthly_cap_micro_usd IS NULL OR monthly_cap_micro_usd BETWEEN 1 AND budget_micro_usd),
  -- JSON arrays; allowed_* NULL = unrestricted.
  scopes                TEXT NOT NULL,
  allowed_models        TEXT,
  allowed_services      TEXT,
  valid_from            INTEGER NOT NULL,
  valid_until           INTEGER NOT NULL CHECK (valid_until > valid_from),
  revoked_at            INTEGER,
  created_at            INTEGER NOT NULL
);
-- GET /v1/mandates: one account's, newest first.
CREATE INDEX mandates_account_created ON mandates (account_id, created_at DESC);

-- A live ghost holds its metadata; destroying it (on request or at expiry) purges the metadata
-- and leaves a tombstone: the id, whose it was, its key (the usage history refers to the key)
-- and when and why it ended, so a repeated destroy still answers 200 while reads answer 404.
CREATE TABLE ghost_sessions (
  id               TEXT PRIMARY KEY,
  account_id       TEXT NOT NULL REFERENCES accounts (id),
  key_id           TEXT NOT NULL UNIQUE REFERENCES api_keys (id),
  name             TEXT CHECK (name IS NULL OR length(name) BETWEEN 1 AND 100),
  scopes           TEXT,
  budget_micro_usd INTEGER CHECK (budget_micro_usd IS NULL OR budget_micro_usd >= 1),
  created_at       INTEGER NOT NULL,
  expires_at       INTEGER,
  destroyed_at     INTEGER,
  destroy_reason   TEXT CHECK (destroy_reason IS NULL OR destroy_reason IN ('destroyed', 'expired')),
  -- Live: metadata present, lifetime within 24 h of creation. Destroyed: metadata gone.
  CHECK (
    (destroyed_at IS NULL AND destroy_reason IS NULL AND scopes IS NOT NULL AND expires_at > created_at AND expires_at - created_at <= 86400000)
    OR (destroyed_at IS NOT NULL AND destroy_reason IS NOT NULL AND name IS NULL AND scopes IS NULL AND budget_micro_usd IS NULL AND expires_at IS NULL)
  )
);
-- GET /v1/ghost/sessions: one account's live ghosts, newest first.
CREATE INDEX ghost_sessions_account_live ON ghost_sessions (account_id, created_at DESC) WHERE destroyed_at IS NULL;
