-- 0035: KYA credentials (spec §4.4 "KYA", §4.1 GET /v1/kya/public/:handle; docs/kya.md). A
-- signed statement of what an agent may do — the scopes, caps and validity of the API key or
-- mandate it is bound to, and the operator's wallet — published under a handle. A new
-- credential for a handle supersedes its active one; revoking ends one. Rows are never deleted.
-- owner kya: kya_credentials

CREATE TABLE kya_credentials (
  -- Issue order for the lists (newest first) and "the handle's latest".
  seq           INTEGER PRIMARY KEY,
  id            TEXT NOT NULL UNIQUE,
  account_id    TEXT NOT NULL REFERENCES accounts (id),
  -- Lowercase; a handle belongs to the account that first issued under it (and is checked
  -- against other accounts' passport handles).
  handle        TEXT NOT NULL,
  binding_kind  TEXT NOT NULL CHECK (binding_kind IN ('key', 'mandate')),
  -- api_keys.id or mandates.id, of this account.
  binding_id    TEXT NOT NULL,
  -- base64url(canonical JSON payload), its EIP-191 signature and the signer, exactly as handed out.
  credential    TEXT NOT NULL,
  signature     TEXT NOT NULL,
  signer        TEXT NOT NULL,
  status        TEXT NOT NULL CHECK (status IN ('active', 'superseded', 'revoked')),
  supersedes    TEXT,
  superseded_by TEXT,
  issued_at     INTEGER NOT NULL,
  superseded_at INTEGER,
  revoked_at    INTEGER
);
-- At most one active credential per handle: supersession is enforced by the database too.
CREATE UNIQUE INDEX kya_credentials_active ON kya_credentials (handle) WHERE status = 'active';
CREATE INDEX kya_credentials_handle ON kya_credentials (handle, seq);
CREATE INDEX kya_credentials_account ON kya_credentials (account_id, seq);
