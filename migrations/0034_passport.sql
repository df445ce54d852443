-- 0034: passports (spec §2.4, §4.1 GET /v1/passport…, GET /v1/registry/identity/:handle, §4.4
-- POST /v1/passport; docs/passport.md). One passport per account under a handle fixed at its
-- first mint; each mint or refresh issues a signed credential (kept: the history of what was
-- stated), whose commitment a recurring pass puts under an anchored Merkle root.
-- owner passport: passports, passport_credentials

CREATE TABLE passports (
  account_id    TEXT PRIMARY KEY REFERENCES accounts (id),
  -- Lowercase; unique across passports (and checked against other accounts' KYA handles).
  handle        TEXT NOT NULL UNIQUE,
  agent_name    TEXT NOT NULL,
  -- A wallet linked to the account when minted (EIP-55), or NULL.
  wallet        TEXT,
  -- The credential the passport shows now (passport_credentials.id).
  credential_id TEXT NOT NULL,
  -- The current credential's figures the directory ranks by (spec §4.1: verified runs, then receipts).
  verified_runs INTEGER NOT NULL,
  receipts      INTEGER NOT NULL,
  -- Signature checking of the account's receipts, done once per receipt: every receipt with
  -- seq <= checked_seq has been checked; failed_runs is a JSON array of the run ids holding a
  -- receipt that failed (a run listed there is never counted as verified).
  checked_seq   INTEGER NOT NULL DEFAULT 0,
  failed_runs   TEXT NOT NULL DEFAULT '[]',
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
);
CREATE INDEX passports_rank ON passports (verified_runs DESC, receipts DESC, handle);

-- Every credential issued, current or not. Content is metadata only: the payload states counts.
CREATE TABLE passport_credentials (
  seq          INTEGER PRIMARY KEY,
  id           TEXT NOT NULL UNIQUE,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  handle       TEXT NOT NULL,
  -- base64url(canonical JSON payload), its EIP-191 signature and the signer, exactly as handed out.
  credential   TEXT NOT NULL,
  signature    TEXT NOT NULL,
  signer       TEXT NOT NULL,
  commitment   TEXT NOT NULL CHECK (length(commitment) = 64),
  issued_at    INTEGER NOT NULL,
  -- Set by the anchoring pass: the root the commitment is a leaf of, and its position.
  anchor_root  TEXT,
  anchor_index INTEGER
);
CREATE INDEX passport_credentials_unanchored ON passport_credentials (seq) WHERE anchor_root IS NULL;
CREATE INDEX passport_credentials_root ON passport_credentials (anchor_root, anchor_index) WHERE anchor_root IS NOT NULL;
