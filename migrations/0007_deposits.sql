-- 0007: on-chain USDT deposits (POST /v1/billing/deposits) and x402 payments (X-PAYMENT /
-- PAYMENT-SIGNATURE), one table for both: a transfer credits once, however it arrived.
-- src/domains/billing/deposits.ts holds the rules.
-- owner billing: deposits

CREATE TABLE deposits (
  id                     TEXT PRIMARY KEY,
  account_id             TEXT NOT NULL REFERENCES accounts (id),
  -- The configured chain's name when the transfer was first seen, and its chain id. Uniqueness
  -- is per chain id, not name, so renaming a chain in svc.toml cannot make a transfer new again.
  chain                  TEXT NOT NULL,
  chain_id               INTEGER NOT NULL,
  -- Lowercase 0x hex.
  tx_hash                TEXT NOT NULL,
  -- The log's index in its block, as first seen (what explorers show).
  log_index              INTEGER NOT NULL CHECK (log_index >= 0),
  -- The log's position in the transaction's receipt: unlike log_index it survives a reorg that
  -- moves the transaction into another block, so it identifies the transfer on re-checks.
  tx_log_position        INTEGER NOT NULL CHECK (tx_log_position >= 0),
  token                  TEXT NOT NULL,
  from_address           TEXT NOT NULL,
  to_address             TEXT NOT NULL,
  -- Token base units as a decimal string (uint256 does not fit an INTEGER).
  amount_units           TEXT NOT NULL,
  decimals               INTEGER NOT NULL,
  amount_micro_usd       INTEGER NOT NULL CHECK (amount_micro_usd > 0),
  block_number           INTEGER NOT NULL,
  confirmations          INTEGER NOT NULL DEFAULT 0,
  required_confirmations INTEGER NOT NULL,
  status                 TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'credited')),
  -- How the transfer first reached svc: posted as a deposit, or presented as an x402 payment.
  source                 TEXT NOT NULL CHECK (source IN ('deposit', 'payment')),
  -- When a payment proof let a request through (each proof does so once).
  consumed_at            INTEGER,
  ledger_entry_id        TEXT,
  -- Why the last re-check could not confirm a pending deposit (chain unreachable, reorged away…).
  last_error             TEXT,
  created_at             INTEGER NOT NULL,
  checked_at             INTEGER NOT NULL,
  credited_at            INTEGER,
  CHECK ((status = 'credited') = (credited_at IS NOT NULL))
);
-- Each (chain, transaction, log) is credited at most once, whatever the number of calls.
CREATE UNIQUE INDEX deposits_transfer ON deposits (chain_id, tx_hash, log_index);
CREATE UNIQUE INDEX deposits_transfer_position ON deposits (chain_id, tx_hash, tx_log_position);
CREATE INDEX deposits_account ON deposits (account_id, created_at);
CREATE INDEX deposits_pending ON deposits (checked_at) WHERE status = 'pending';
