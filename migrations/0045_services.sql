-- owner services: services, service_calls, service_payments
-- 0045: the paid-services marketplace. A service is sold per call over x402: the buyer pays the
-- seller's payee wallet directly on chain (svc never holds the funds), and each transfer (a log of
-- one transaction on one chain) pays for at most one call, ever: service_payments' primary key.
-- A deleted service keeps its row (deleted_at), so its slug stays taken forever.

CREATE TABLE services (
  -- Creation order, stable within one millisecond.
  seq              INTEGER PRIMARY KEY,
  id               TEXT NOT NULL UNIQUE,
  account_id       TEXT NOT NULL REFERENCES accounts (id),
  -- Public and global: one namespace for every account; "directory" and "manage" never appear.
  slug             TEXT NOT NULL UNIQUE,
  name             TEXT NOT NULL,
  description      TEXT NOT NULL,
  price_micro_usd  INTEGER NOT NULL CHECK (price_micro_usd > 0),
  -- Lowercase 0x address: a wallet that was linked to the account when the service was made.
  payee            TEXT NOT NULL,
  -- Exactly one of the two: where calls are forwarded, or the chat model / engine build that answers them.
  upstream_url     TEXT,
  handler_model    TEXT,
  listed           INTEGER NOT NULL CHECK (listed IN (0, 1)),
  enabled          INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  deleted_at       INTEGER,
  CHECK ((upstream_url IS NULL) <> (handler_model IS NULL))
);
CREATE INDEX services_account ON services (account_id, seq);

CREATE TABLE service_calls (
  seq                  INTEGER PRIMARY KEY,
  id                   TEXT NOT NULL UNIQUE,
  service_id           TEXT NOT NULL REFERENCES services (id),
  -- running: paid and under way; completed: answered (the payment is spent); failed: not
  -- answered, the payment released for another try.
  status               TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  price_micro_usd      INTEGER NOT NULL,
  chain                TEXT NOT NULL,
  chain_id             INTEGER NOT NULL,
  tx_hash              TEXT NOT NULL,
  log_index            INTEGER NOT NULL,
  payer                TEXT NOT NULL,
  -- Token base units, decimal string; and the same in micro-USD (floor).
  amount_units         TEXT NOT NULL,
  amount_micro_usd     INTEGER NOT NULL,
  -- The upstream's HTTP status (NULL for a model handler, or when it never answered).
  http_status          INTEGER,
  latency_ms           INTEGER,
  request_sha256       TEXT NOT NULL,
  response_sha256      TEXT,
  -- Why a failed call failed: a reason safe to show the seller (no URL, no content).
  error                TEXT,
  -- The signed receipt of a completed call.
  statement            TEXT,
  signature            TEXT,
  signer               TEXT,
  created_at           INTEGER NOT NULL,
  finished_at          INTEGER
);
CREATE INDEX service_calls_service ON service_calls (service_id, seq);

CREATE TABLE service_payments (
  chain_id      INTEGER NOT NULL,
  tx_hash       TEXT NOT NULL,
  -- The transfer's position among the receipt's logs (stable across a reorg that moves the block).
  log_position  INTEGER NOT NULL,
  call_id       TEXT NOT NULL UNIQUE REFERENCES service_calls (id),
  PRIMARY KEY (chain_id, tx_hash, log_position)
);
