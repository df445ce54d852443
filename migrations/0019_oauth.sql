-- 0019: the OAuth 2.1 authorization server for MCP clients (spec §4.1 OAuth, §4.4 approve, §5
-- rule 5; docs/oauth.md). Every secret (authorization code, access token, refresh token) is
-- stored as its sha256 only. A grant is backed by an API key of the account (minted at the
-- code exchange, kind 'delegated', no parent): its access tokens resolve to that key, so the
-- account's key controls (revoke, caps, breaker, suspension) apply to them unchanged.
-- owner oauth: oauth_clients, oauth_authorizations, oauth_grants, oauth_tokens

-- Clients: registered (RFC 7591, public) or known by a Client ID Metadata Document (the id is
-- the document's https URL; the fetched metadata is cached here).
CREATE TABLE oauth_clients (
  id            TEXT PRIMARY KEY,
  kind          TEXT NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
  name          TEXT,
  redirect_uris TEXT NOT NULL,
  metadata      TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  fetched_at    INTEGER
);

-- One authorization request, from GET /authorize to the code's single use. status moves
-- pending → approved (code issued) → exchanged, or pending → denied; expires_at bounds each step.
CREATE TABLE oauth_authorizations (
  id                    TEXT PRIMARY KEY,
  client_id             TEXT NOT NULL REFERENCES oauth_clients (id),
  redirect_uri          TEXT NOT NULL,
  state                 TEXT,
  code_challenge        TEXT NOT NULL,
  requested_scope       TEXT,
  resource              TEXT NOT NULL,
  status                TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'exchanged')),
  account_id            TEXT REFERENCES accounts (id),
  scopes                TEXT,
  monthly_cap_micro_usd INTEGER CHECK (monthly_cap_micro_usd IS NULL OR monthly_cap_micro_usd >= 0),
  code_sha256           TEXT UNIQUE,
  grant_id              TEXT,
  created_at            INTEGER NOT NULL,
  expires_at            INTEGER NOT NULL
);
CREATE INDEX oauth_authorizations_expiry ON oauth_authorizations (expires_at);

-- A consented grant: one client, one account, one resource (audience), one API key.
CREATE TABLE oauth_grants (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  client_id   TEXT NOT NULL REFERENCES oauth_clients (id),
  key_id      TEXT NOT NULL,
  key_sha256  TEXT NOT NULL,
  resource    TEXT NOT NULL,
  scopes      TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  revoked_at  INTEGER
);
CREATE INDEX oauth_grants_account ON oauth_grants (account_id);

-- Access and refresh tokens. A refresh token is used once (used_at); presenting a used one
-- again revokes the whole grant (reuse detection).
CREATE TABLE oauth_tokens (
  token_sha256 TEXT PRIMARY KEY,
  grant_id     TEXT NOT NULL REFERENCES oauth_grants (id),
  kind         TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  expires_at   INTEGER NOT NULL,
  used_at      INTEGER,
  created_at   INTEGER NOT NULL
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_at);
