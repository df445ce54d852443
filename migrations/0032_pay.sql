-- 0032: payment requests (spec §4.3 "Payments and media"; docs/payments.md "Payment requests").
-- An account asks to be paid an amount of a chain's USDT to one of its linked wallets; svc
-- signs the request. The owner settles it with the transaction hash of an ERC-20 transfer,
-- which svc checks on the chain and answers with a signed settlement receipt. A transfer (one
-- log of one transaction on one chain) settles at most one request, ever: pay_settlements'
-- primary key.
-- owner pay: pay_requests, pay_settlements

CREATE TABLE pay_requests (
  -- Creation order for the open-request count and any listing, stable within one millisecond.
  seq               INTEGER PRIMARY KEY,
  id                TEXT NOT NULL UNIQUE,
  account_id        TEXT NOT NULL REFERENCES accounts (id),
  key_id            TEXT NOT NULL REFERENCES api_keys (id),
  -- The configured chain's name and id when the request was made (a chain renamed or re-pointed later does not change what was asked).
  chain             TEXT NOT NULL,
  chain_id          INTEGER NOT NULL,
  -- Lowercase 0x addresses.
  token             TEXT NOT NULL,
  payee             TEXT NOT NULL,
  decimals          INTEGER NOT NULL,
  amount_micro_usd  INTEGER NOT NULL CHECK (amount_micro_usd > 0),
  -- Token base units, decimal string (can exceed 2^53 on an 18-decimal token).
  amount_units      TEXT NOT NULL,
  -- The chain's head when the request was made: only a transfer mined in a later block settles it.
  after_block       INTEGER NOT NULL,
  -- The signed request (its payload holds the memo: the memo is stored only there).
  statement         TEXT NOT NULL,
  signature         TEXT NOT NULL,
  signer            TEXT NOT NULL,
  expires_at        INTEGER NOT NULL,
  created_at        INTEGER NOT NULL,
  settled_at        INTEGER
);
-- The open-request cap: one account's unsettled requests.
CREATE INDEX pay_requests_open ON pay_requests (account_id, expires_at) WHERE settled_at IS NULL;

CREATE TABLE pay_settlements (
  chain_id               INTEGER NOT NULL,
  tx_hash                TEXT NOT NULL,
  -- The transfer's position among the transaction receipt's logs (stable across a reorg that moves the block).
  log_position           INTEGER NOT NULL,
  log_index              INTEGER NOT NULL,
  request_id             TEXT NOT NULL UNIQUE REFERENCES pay_requests (id),
  from_address           TEXT NOT NULL,
  amount_units           TEXT NOT NULL,
  block_number           INTEGER NOT NULL,
  block_hash             TEXT NOT NULL,
  confirmations          INTEGER NOT NULL,
  required_confirmations INTEGER NOT NULL,
  -- The signed settlement receipt.
  statement              TEXT NOT NULL,
  signature              TEXT NOT NULL,
  signer                 TEXT NOT NULL,
  settled_at             INTEGER NOT NULL,
  PRIMARY KEY (chain_id, tx_hash, log_position)
);
