-- 0004: organizations, their members, and invites (docs/orgs.md).
-- owner orgs: orgs, org_members, org_invites

-- Roles rank owner > admin > member; the rules live in src/domains/orgs/*.ts.
CREATE TABLE orgs (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  created_by TEXT NOT NULL REFERENCES accounts (id),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- Deleting an org takes its memberships and invites with it (one DELETE, one transaction).
CREATE TABLE org_members (
  org_id     TEXT NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  role       TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  joined_at  INTEGER NOT NULL,
  PRIMARY KEY (org_id, account_id)
);
-- GET /v1/orgs: the orgs of one account.
CREATE INDEX org_members_account ON org_members (account_id);

-- An invite is either for a wallet (whoever holds it may accept) or a one-time link (only the
-- sha256 of its token is kept). Pending = not accepted, not revoked, not expired. revoked_by is
-- the admin who revoked it, or the invitee who declined it.
CREATE TABLE org_invites (
  id             TEXT PRIMARY KEY,
  org_id         TEXT NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  role           TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  wallet_address TEXT CHECK (wallet_address = lower(wallet_address) AND length(wallet_address) = 42),
  token_sha256   TEXT UNIQUE,
  created_by     TEXT NOT NULL REFERENCES accounts (id),
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  accepted_at    INTEGER,
  accepted_by    TEXT REFERENCES accounts (id),
  revoked_at     INTEGER,
  revoked_by     TEXT REFERENCES accounts (id),
  CHECK ((wallet_address IS NULL) <> (token_sha256 IS NULL)),
  CHECK ((accepted_at IS NULL) = (accepted_by IS NULL)),
  CHECK (accepted_at IS NULL OR revoked_at IS NULL)
);
-- The org's pending list (newest first) and the pending-invite cap.
CREATE INDEX org_invites_org ON org_invites (org_id, created_at) WHERE accepted_at IS NULL AND revoked_at IS NULL;
-- GET /v1/orgs/invites/mine: pending invites for the caller's wallets.
CREATE INDEX org_invites_wallet ON org_invites (wallet_address) WHERE wallet_address IS NOT NULL AND accepted_at IS NULL AND revoked_at IS NULL;
-- Revoking an account's outstanding invites when it loses the standing to have made them.
CREATE INDEX org_invites_creator ON org_invites (org_id, created_by) WHERE accepted_at IS NULL AND revoked_at IS NULL;
