-- 0001: the appliance's core tables. Forward-only: later changes go in new files.
-- Times are integer milliseconds since the Unix epoch; money is integer micro-USD.
-- owner core: jobs, outbox_events, audit_log, ledger_entries, holds
-- owner status: health_samples
-- owner accounts: accounts
-- owner auth: sessions
-- owner keys: api_keys
-- owner admin: denylist

-- Durable job queue (src/core/scheduler.ts). Every timer in the product is a row here.
CREATE TABLE jobs (
  id           TEXT PRIMARY KEY,
  kind         TEXT NOT NULL,
  payload      TEXT NOT NULL DEFAULT '{}',
  run_at       INTEGER NOT NULL,
  status       TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'failed')),
  attempts     INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
  lease_until  INTEGER,
  unique_key   TEXT,
  last_error   TEXT,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
CREATE INDEX jobs_due ON jobs (status, run_at);
CREATE INDEX jobs_lease ON jobs (status, lease_until);
-- At most one live job per unique key (recurring jobs, per-record timers).
CREATE UNIQUE INDEX jobs_unique_live ON jobs (unique_key) WHERE unique_key IS NOT NULL AND status IN ('pending', 'running');

-- Transactional outbox (src/core/outbox.ts): written in the same transaction as the change.
CREATE TABLE outbox_events (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  id         TEXT NOT NULL UNIQUE,
  type       TEXT NOT NULL,
  account_id TEXT,
  payload    TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX outbox_account ON outbox_events (account_id, seq);
CREATE INDEX outbox_type_time ON outbox_events (type, created_at);

-- Health samples recorded by the scheduler; GET /v1/status computes uptime from them.
CREATE TABLE health_samples (
  id     INTEGER PRIMARY KEY AUTOINCREMENT,
  at     INTEGER NOT NULL,
  ok     INTEGER NOT NULL CHECK (ok IN (0, 1)),
  detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX health_samples_at ON health_samples (at);

-- Accounts. balance and held are the ledger's running totals, kept in the same transaction
-- as every ledger entry; the CHECKs make overspending impossible even for a buggy caller.
CREATE TABLE accounts (
  id                TEXT PRIMARY KEY,
  created_at        INTEGER NOT NULL,
  balance_micro_usd INTEGER NOT NULL DEFAULT 0 CHECK (balance_micro_usd >= 0),
  held_micro_usd    INTEGER NOT NULL DEFAULT 0 CHECK (held_micro_usd >= 0 AND held_micro_usd <= balance_micro_usd),
  suspended_at      INTEGER,
  suspended_reason  TEXT
);

-- Session and API-key credentials: only sha256 of the secret is stored.
CREATE TABLE sessions (
  id           TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  revoked_at   INTEGER,
  last_seen_at INTEGER
);
CREATE INDEX sessions_account ON sessions (account_id);

CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  token_sha256 TEXT NOT NULL UNIQUE,
  prefix       TEXT NOT NULL,
  name         TEXT,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER,
  revoked_at   INTEGER
);
CREATE INDEX api_keys_account ON api_keys (account_id);

-- Append-only ledger (src/core/ledger.ts) and credit holds.
CREATE TABLE ledger_entries (
  seq                     INTEGER PRIMARY KEY AUTOINCREMENT,
  id                      TEXT NOT NULL UNIQUE,
  account_id              TEXT NOT NULL REFERENCES accounts (id),
  kind                    TEXT NOT NULL CHECK (kind IN ('credit', 'debit', 'hold', 'release', 'adjustment')),
  amount_micro_usd        INTEGER NOT NULL,
  balance_after_micro_usd INTEGER NOT NULL,
  held_after_micro_usd    INTEGER NOT NULL,
  hold_id                 TEXT,
  ref_type                TEXT,
  ref_id                  TEXT,
  memo                    TEXT,
  created_at              INTEGER NOT NULL
);
CREATE INDEX ledger_account_seq ON ledger_entries (account_id, seq);
CREATE INDEX ledger_kind_time ON ledger_entries (kind, created_at);
CREATE TRIGGER ledger_entries_append_only_update BEFORE UPDATE ON ledger_entries
  BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
CREATE TRIGGER ledger_entries_append_only_delete BEFORE DELETE ON ledger_entries
  BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;

CREATE TABLE holds (
  id               TEXT PRIMARY KEY,
  account_id       TEXT NOT NULL REFERENCES accounts (id),
  amount_micro_usd INTEGER NOT NULL CHECK (amount_micro_usd > 0),
  status           TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'captured', 'released')),
  purpose          TEXT,
  created_at       INTEGER NOT NULL,
  expires_at       INTEGER NOT NULL,
  closed_at        INTEGER
);
CREATE INDEX holds_open_expiry ON holds (status, expires_at);

-- Payloads refused by full sha256 (POST /v1/admin/denylist).
CREATE TABLE denylist (
  sha256      TEXT PRIMARY KEY CHECK (length(sha256) = 64),
  reason      TEXT,
  created_at  INTEGER NOT NULL,
  hits        INTEGER NOT NULL DEFAULT 0,
  last_hit_at INTEGER
);

-- What operators did, from the admin API or the CLI.
CREATE TABLE audit_log (
  seq    INTEGER PRIMARY KEY AUTOINCREMENT,
  at     INTEGER NOT NULL,
  actor  TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT,
  detail TEXT NOT NULL DEFAULT '{}'
);
