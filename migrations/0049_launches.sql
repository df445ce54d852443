-- owner launches: launches, launch_checks, launch_actions, launch_mint_authorizations, launch_redemptions, launch_check_payments, launch_subscriptions
-- 0049: backed-token launches (docs/launches.md). A launch locks its spec at creation (canonical
-- JSON and its sha256), binds one ERC-20 once, and is checked against its custodian; every
-- check, binding, authorization, distribution, NAV figure and redemption is also an entry of the
-- launch's append-only, hash-chained actions log. Amounts of tokens are decimal strings of base
-- units (uint256 does not fit an INTEGER).
CREATE TABLE launches (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  -- The org it was created for (its admins manage it), or NULL for the account's own.
  org_id TEXT,
  name TEXT NOT NULL,
  slug TEXT NOT NULL UNIQUE,
  -- evidence StoredSource JSON: the custodian endpoint, sealed credential and pointer.
  custodian TEXT NOT NULL,
  decimals INTEGER NOT NULL CHECK (decimals BETWEEN 0 AND 36),
  interval_s INTEGER NOT NULL CHECK (interval_s > 0),
  spec_canonical TEXT NOT NULL,
  digest TEXT NOT NULL,
  reveal_at INTEGER,
  verdict_signer TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retired')),
  chain TEXT,
  chain_id INTEGER,
  token TEXT,
  bound_at INTEGER,
  mint_nonce INTEGER NOT NULL DEFAULT 0,
  fee_paid_until INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  retired_at INTEGER
);
CREATE INDEX launches_account ON launches (account_id, created_at);
CREATE INDEX launches_org ON launches (org_id, created_at) WHERE org_id IS NOT NULL;

CREATE TABLE launch_checks (
  launch_id TEXT NOT NULL REFERENCES launches (id),
  seq INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('VERIFIED', 'DISCREPANCY', 'UNAVAILABLE')),
  -- scheduled, owner or public (demanded by anyone).
  trigger TEXT NOT NULL,
  reserves_figure TEXT,
  reserves_units TEXT,
  supply_units TEXT,
  decimals INTEGER NOT NULL,
  chain_id INTEGER,
  token TEXT,
  block_number INTEGER,
  -- evidence reference JSON (never the bytes), or NULL when the custodian was unavailable.
  evidence TEXT,
  reason TEXT,
  checked_at INTEGER NOT NULL,
  PRIMARY KEY (launch_id, seq)
);

CREATE TABLE launch_actions (
  launch_id TEXT NOT NULL REFERENCES launches (id),
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  prev_hash TEXT NOT NULL,
  entry_hash TEXT NOT NULL,
  PRIMARY KEY (launch_id, seq)
);

CREATE TABLE launch_mint_authorizations (
  id TEXT PRIMARY KEY,
  launch_id TEXT NOT NULL REFERENCES launches (id),
  nonce INTEGER NOT NULL,
  to_address TEXT NOT NULL,
  amount_units TEXT NOT NULL,
  deadline INTEGER NOT NULL,
  check_seq INTEGER NOT NULL,
  digest TEXT NOT NULL,
  signature TEXT NOT NULL,
  signer TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (launch_id, nonce)
);

CREATE TABLE launch_redemptions (
  id TEXT PRIMARY KEY,
  launch_id TEXT NOT NULL REFERENCES launches (id),
  chain_id INTEGER NOT NULL,
  tx_hash TEXT NOT NULL,
  -- Position in the receipt (survives a reorg into another block); log_index as first seen.
  log_position INTEGER NOT NULL,
  log_index INTEGER NOT NULL,
  from_address TEXT NOT NULL,
  amount_units TEXT NOT NULL,
  block_number INTEGER NOT NULL,
  block_hash TEXT NOT NULL,
  statement TEXT NOT NULL,
  signature TEXT NOT NULL,
  signer TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (chain_id, tx_hash, log_position)
);
CREATE INDEX launch_redemptions_launch ON launch_redemptions (launch_id, created_at);

-- Transfers to the treasury that paid for a demanded check: each buys one check once.
CREATE TABLE launch_check_payments (
  chain_id INTEGER NOT NULL,
  tx_hash TEXT NOT NULL,
  log_position INTEGER NOT NULL,
  launch_id TEXT NOT NULL REFERENCES launches (id),
  payer TEXT NOT NULL,
  amount_units TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (chain_id, tx_hash, log_position)
);

CREATE TABLE launch_subscriptions (
  launch_id TEXT PRIMARY KEY REFERENCES launches (id),
  chain TEXT NOT NULL,
  chain_id INTEGER NOT NULL,
  payment_token TEXT NOT NULL,
  payment_token_decimals INTEGER,
  price_units TEXT NOT NULL,
  period_secs INTEGER NOT NULL,
  pay_to TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
