-- 0003: passkeys (WebAuthn credentials) and the challenges svc issues for them.
-- owner auth: webauthn_users, passkeys, webauthn_challenges

-- The WebAuthn user handle of an account (user.id in the creation options). Random rather than
-- the account id, so an authenticator never stores an identifier our API also uses; one per
-- account, so every passkey of the account carries the same handle.
CREATE TABLE webauthn_users (
  account_id  TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  user_handle TEXT NOT NULL UNIQUE,   -- base64url of 32 random bytes
  created_at  INTEGER NOT NULL
);

-- One row per registered credential. Login looks a credential up by credential_id (unique
-- across all accounts: the first registration owns it).
CREATE TABLE passkeys (
  id            TEXT PRIMARY KEY,                 -- pk_…
  account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  credential_id TEXT NOT NULL UNIQUE,             -- base64url, as the browser sends it
  public_key    BLOB NOT NULL,                    -- COSE_Key bytes from the attested credential data
  counter       INTEGER NOT NULL CHECK (counter >= 0),
  transports    TEXT NOT NULL DEFAULT '[]',       -- JSON array of transport hints
  device_type   TEXT NOT NULL CHECK (device_type IN ('single_device', 'multi_device')),
  backed_up     INTEGER NOT NULL CHECK (backed_up IN (0, 1)),
  aaguid        TEXT NOT NULL,                    -- authenticator model (all zeros when not disclosed)
  name          TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  last_used_at  INTEGER
);
CREATE INDEX passkeys_account ON passkeys (account_id, created_at);

-- Challenges: single use (used_at set atomically), five-minute lifetime. A registration
-- challenge belongs to the account that asked for it; a login challenge to nobody yet
-- (discoverable credentials: the passkey names the account).
CREATE TABLE webauthn_challenges (
  challenge  TEXT PRIMARY KEY,                    -- base64url, as it comes back in clientDataJSON
  purpose    TEXT NOT NULL CHECK (purpose IN ('register', 'login')),
  account_id TEXT REFERENCES accounts (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER,
  CHECK ((purpose = 'register') = (account_id IS NOT NULL))
);
CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);
