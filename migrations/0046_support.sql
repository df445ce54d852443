-- owner support: support_nonces, support_claims
-- 0046: the support program. A claim registers a pair of wallets (an ed25519 key and an EVM
-- address) that both signed one single-use nonce message, with a finalized transaction sent from
-- the EVM address. Registration only: nothing is paid or granted here.

CREATE TABLE support_nonces (
  nonce       TEXT PRIMARY KEY,
  message     TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  -- Set once, by the claim that used it.
  used_at     INTEGER
);
CREATE INDEX support_nonces_expiry ON support_nonces (expires_at);

CREATE TABLE support_claims (
  seq                 INTEGER PRIMARY KEY,
  id                  TEXT NOT NULL UNIQUE,
  -- Lowercase 0x address; one claim per address, and per ed25519 key (lowercase hex of 32 bytes).
  evm_address         TEXT NOT NULL UNIQUE,
  ed25519_public_key  TEXT NOT NULL UNIQUE,
  nonce               TEXT NOT NULL UNIQUE REFERENCES support_nonces (nonce),
  chain               TEXT NOT NULL,
  chain_id            INTEGER NOT NULL,
  tx_hash             TEXT NOT NULL,
  block_number        INTEGER NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('registered')),
  created_at          INTEGER NOT NULL,
  -- A transaction backs one claim.
  UNIQUE (chain_id, tx_hash)
);
