-- 0005: API keys grow into spend-controlled credentials: scopes, delegation trees, monthly and
-- lifetime caps, a circuit breaker, rotation with a grace window, and constraints (models,
-- services, validity window) for mandates and ghosts. Plus the meter's records.
-- owner core: key_spend, key_spend_window
-- owner usage: usage_events

ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'standard' CHECK (kind IN ('standard', 'delegated', 'mandate', 'ghost'));
ALTER TABLE api_keys ADD COLUMN parent_id TEXT REFERENCES api_keys (id);
ALTER TABLE api_keys ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
-- JSON array of scope names; ["*"] is every scope.
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT '["*"]';
ALTER TABLE api_keys ADD COLUMN monthly_cap_micro_usd INTEGER CHECK (monthly_cap_micro_usd IS NULL OR monthly_cap_micro_usd >= 0);
-- A budget over the key's whole life (mandates, ghosts).
ALTER TABLE api_keys ADD COLUMN total_cap_micro_usd INTEGER CHECK (total_cap_micro_usd IS NULL OR total_cap_micro_usd >= 0);
-- Circuit breaker: spend per rolling minute above this freezes the key (NULL: the deployment default; 0: off).
ALTER TABLE api_keys ADD COLUMN breaker_micro_usd_per_minute INTEGER CHECK (breaker_micro_usd_per_minute IS NULL OR breaker_micro_usd_per_minute >= 0);
ALTER TABLE api_keys ADD COLUMN frozen_at INTEGER;
ALTER TABLE api_keys ADD COLUMN frozen_reason TEXT;
-- JSON arrays, NULL = unrestricted.
ALTER TABLE api_keys ADD COLUMN allowed_models TEXT;
ALTER TABLE api_keys ADD COLUMN allowed_services TEXT;
ALTER TABLE api_keys ADD COLUMN not_before INTEGER;
-- Rotation: the old key keeps working as its replacement until grace_until.
ALTER TABLE api_keys ADD COLUMN rotated_to TEXT REFERENCES api_keys (id);
ALTER TABLE api_keys ADD COLUMN grace_until INTEGER;
ALTER TABLE api_keys ADD COLUMN total_spent_micro_usd INTEGER NOT NULL DEFAULT 0;
CREATE INDEX api_keys_parent ON api_keys (parent_id);

-- Spend per key per UTC month, of the key and everything delegated below it (a settle charges
-- the whole chain), plus credit reserved for work in flight. Caps are checked against
-- spent + held in the same transaction that adds to held.
CREATE TABLE key_spend (
  key_id          TEXT NOT NULL REFERENCES api_keys (id),
  month           TEXT NOT NULL,
  spent_micro_usd INTEGER NOT NULL DEFAULT 0 CHECK (spent_micro_usd >= 0),
  held_micro_usd  INTEGER NOT NULL DEFAULT 0 CHECK (held_micro_usd >= 0),
  cap_event_at    INTEGER,
  PRIMARY KEY (key_id, month)
);

-- Spend per key in 10-second buckets, for the circuit breaker's rolling minute.
CREATE TABLE key_spend_window (
  key_id          TEXT NOT NULL REFERENCES api_keys (id),
  bucket          INTEGER NOT NULL,
  amount_micro_usd INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, bucket)
);

-- What the meter reserved for one piece of work, until it is settled or released.
ALTER TABLE holds ADD COLUMN key_id TEXT REFERENCES api_keys (id);
ALTER TABLE holds ADD COLUMN key_chain TEXT;
ALTER TABLE holds ADD COLUMN month TEXT;
ALTER TABLE holds ADD COLUMN kind TEXT;
ALTER TABLE holds ADD COLUMN resource TEXT;
ALTER TABLE holds ADD COLUMN run_id TEXT;

-- One row per settled billable action: the usage ledger.
CREATE TABLE usage_events (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  id               TEXT NOT NULL UNIQUE,
  account_id       TEXT NOT NULL REFERENCES accounts (id),
  key_id           TEXT REFERENCES api_keys (id),
  kind             TEXT NOT NULL,
  resource         TEXT,
  run_id           TEXT,
  cost_micro_usd   INTEGER NOT NULL CHECK (cost_micro_usd >= 0),
  reserved_micro_usd INTEGER NOT NULL,
  units            TEXT NOT NULL DEFAULT '{}',
  status           TEXT NOT NULL,
  hold_id          TEXT,
  created_at       INTEGER NOT NULL
);
CREATE INDEX usage_events_account ON usage_events (account_id, seq);
CREATE INDEX usage_events_key_time ON usage_events (key_id, created_at);
