-- owner vault: vault_assets, vault_holders, vault_transfers, vault_distributions, vault_distribution_shares, vault_attesters, vault_attestations, vault_documents, vault_grants, vault_claims, vault_chain
-- 0048: the vault registry (docs/vault.md). An account's off-chain assets, their holders'
-- positions (integer micro-USD), the attesters and their signed statements, sealed documents,
-- view grants and wallet claims, and per asset an append-only, hash-chained log of every change.

-- An asset: its declared size (total_micro_usd) bounds what can be issued; the chain head is
-- kept here so an append reads and moves it in the write's own transaction.
CREATE TABLE vault_assets (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  name TEXT NOT NULL,
  symbol TEXT,
  description TEXT,
  total_micro_usd INTEGER NOT NULL CHECK (total_micro_usd > 0),
  issued_micro_usd INTEGER NOT NULL DEFAULT 0 CHECK (issued_micro_usd >= 0 AND issued_micro_usd <= total_micro_usd),
  chain_seq INTEGER NOT NULL DEFAULT 0,
  chain_head TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX vault_assets_account ON vault_assets (account_id, created_at);

-- A holder's position can never go below zero: the transfer checks it, and this CHECK is the
-- last word if a bug ever skipped the check.
CREATE TABLE vault_holders (
  id TEXT PRIMARY KEY,
  asset_id TEXT NOT NULL REFERENCES vault_assets (id),
  account_id TEXT NOT NULL,
  name TEXT NOT NULL,
  email TEXT,
  wallet TEXT,
  position_micro_usd INTEGER NOT NULL DEFAULT 0 CHECK (position_micro_usd >= 0),
  distributed_micro_usd INTEGER NOT NULL DEFAULT 0 CHECK (distributed_micro_usd >= 0),
  claimed_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX vault_holders_asset ON vault_holders (asset_id, created_at);
CREATE UNIQUE INDEX vault_holders_email ON vault_holders (asset_id, email) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX vault_holders_wallet ON vault_holders (asset_id, wallet) WHERE wallet IS NOT NULL;

-- Issues (from the issuer, from_holder_id NULL) and transfers between holders. amount_salt
-- opens the chain entry's amount_commitment.
CREATE TABLE vault_transfers (
  id TEXT PRIMARY KEY,
  asset_id TEXT NOT NULL REFERENCES vault_assets (id),
  account_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('issue', 'transfer')),
  from_holder_id TEXT,
  to_holder_id TEXT NOT NULL,
  amount_micro_usd INTEGER NOT NULL CHECK (amount_micro_usd > 0),
  amount_salt TEXT NOT NULL,
  memo TEXT,
  chain_seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX vault_transfers_account ON vault_transfers (account_id, created_at);

CREATE TABLE vault_distributions (
  id TEXT PRIMARY KEY,
  asset_id TEXT NOT NULL REFERENCES vault_assets (id),
  account_id TEXT NOT NULL,
  amount_micro_usd INTEGER NOT NULL CHECK (amount_micro_usd > 0),
  distributed_micro_usd INTEGER NOT NULL,
  remainder_micro_usd INTEGER NOT NULL,
  basis_micro_usd INTEGER NOT NULL,
  holders INTEGER NOT NULL,
  amount_salt TEXT NOT NULL,
  memo TEXT,
  chain_seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX vault_distributions_account ON vault_distributions (account_id, created_at);

CREATE TABLE vault_distribution_shares (
  distribution_id TEXT NOT NULL REFERENCES vault_distributions (id),
  holder_id TEXT NOT NULL,
  position_micro_usd INTEGER NOT NULL,
  amount_micro_usd INTEGER NOT NULL,
  PRIMARY KEY (distribution_id, holder_id)
);

CREATE TABLE vault_attesters (
  id TEXT PRIMARY KEY,
  asset_id TEXT NOT NULL REFERENCES vault_assets (id),
  account_id TEXT NOT NULL,
  name TEXT NOT NULL,
  roles TEXT NOT NULL,
  wallet TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX vault_attesters_asset ON vault_attesters (asset_id, created_at);

-- A statement signed by an attester's own key; its text is sealed at rest.
CREATE TABLE vault_attestations (
  id TEXT PRIMARY KEY,
  asset_id TEXT NOT NULL REFERENCES vault_assets (id),
  account_id TEXT NOT NULL,
  attester_id TEXT NOT NULL REFERENCES vault_attesters (id),
  statement_sealed TEXT NOT NULL,
  statement_sha256 TEXT NOT NULL,
  signature TEXT NOT NULL UNIQUE,
  signer TEXT NOT NULL,
  chain_seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX vault_attestations_asset ON vault_attestations (asset_id, created_at);

CREATE TABLE vault_documents (
  id TEXT PRIMARY KEY,
  asset_id TEXT NOT NULL REFERENCES vault_assets (id),
  account_id TEXT NOT NULL,
  name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  body_sealed TEXT NOT NULL,
  chain_seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX vault_documents_asset ON vault_documents (asset_id, created_at);

-- View grants: the token is shown once; only its sha256 is kept.
CREATE TABLE vault_grants (
  id TEXT PRIMARY KEY,
  asset_id TEXT NOT NULL REFERENCES vault_assets (id),
  account_id TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  token_prefix TEXT NOT NULL,
  label TEXT,
  scopes TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  last_used_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX vault_grants_asset ON vault_grants (asset_id, created_at);

-- Claims: a holder binds a wallet by signing the claim's message. The token is shown once.
CREATE TABLE vault_claims (
  id TEXT PRIMARY KEY,
  asset_id TEXT NOT NULL REFERENCES vault_assets (id),
  account_id TEXT NOT NULL,
  holder_id TEXT NOT NULL REFERENCES vault_holders (id),
  token_hash TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('open', 'bound', 'superseded')),
  wallet TEXT,
  expires_at INTEGER NOT NULL,
  bound_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX vault_claims_account ON vault_claims (account_id, created_at);
CREATE INDEX vault_claims_holder ON vault_claims (holder_id, status);

-- The append-only log: entry is the canonical JSON of the public entry; hash =
-- sha256(canonical {entry, prev_hash}). Rows are never updated except for the anchor columns,
-- set once when a batch puts the entry's hash under a Merkle root.
CREATE TABLE vault_chain (
  asset_id TEXT NOT NULL REFERENCES vault_assets (id),
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  entry TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  anchor_root TEXT,
  anchor_index INTEGER,
  PRIMARY KEY (asset_id, seq)
);
CREATE INDEX vault_chain_unanchored ON vault_chain (created_at) WHERE anchor_root IS NULL;
CREATE INDEX vault_chain_root ON vault_chain (anchor_root, anchor_index) WHERE anchor_root IS NOT NULL;
