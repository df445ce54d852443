-- 0002: sign-in (SIWE nonces), wallets, and what sessions record about themselves.
-- owner auth: wallets, siwe_nonces

-- Wallets: an account may have several; a wallet belongs to at most one account.
-- Addresses are stored lowercase (compared case-insensitively) and shown EIP-55 checksummed.
CREATE TABLE wallets (
  address    TEXT PRIMARY KEY CHECK (address = lower(address) AND length(address) = 42),
  account_id TEXT NOT NULL REFERENCES accounts (id),
  created_at INTEGER NOT NULL
);
CREATE INDEX wallets_account ON wallets (account_id, created_at);

-- Server-issued SIWE nonces: single use, consumed atomically, short-lived.
CREATE TABLE siwe_nonces (
  nonce      TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER
);
CREATE INDEX siwe_nonces_expiry ON siwe_nonces (expires_at);

-- Sessions slide (expires_at moves forward with use) up to a hard limit.
ALTER TABLE sessions ADD COLUMN method TEXT NOT NULL DEFAULT 'siwe' CHECK (method IN ('siwe', 'passkey', 'operator'));
ALTER TABLE sessions ADD COLUMN wallet_address TEXT;
ALTER TABLE sessions ADD COLUMN max_expires_at INTEGER;
ALTER TABLE sessions ADD COLUMN user_agent TEXT;
ALTER TABLE sessions ADD COLUMN ip TEXT;
