-- owner attestations: attestation_versions, attestation_public_ids, attestation_stale_notices
-- 0041: asset attestations (spec §4.3 "Attestations, NAV, benchmarks", §4.1 the public
-- verification view, §3 the attestation record; docs/attestations.md). A check judges a claim
-- about an asset (reserves cover the on-chain supply, a reported supply matches it) against its
-- evidence sources and signs the result. Every check or refresh is a new version (seq + 1):
-- versions are never updated or deleted, the newest supersedes the rest.

CREATE TABLE attestation_versions (
  id                  TEXT PRIMARY KEY,
  account_id          TEXT NOT NULL REFERENCES accounts (id),
  -- Chosen by the caller, scoped to the account: two accounts may use one asset_id.
  asset_id            TEXT NOT NULL,
  seq                 INTEGER NOT NULL CHECK (seq >= 1),
  key_id              TEXT,
  subject_ref         TEXT NOT NULL,
  -- The owner asked for the public view (never for a record drawing on a declaration or sealed data).
  public              INTEGER NOT NULL CHECK (public IN (0, 1)),
  -- JSON: {kind, tolerance_bps, max_age_secs, declared_figure}.
  claim               TEXT NOT NULL,
  -- JSON: the evidence area's StoredSource[] (credentials and inline documents sealed).
  sources             TEXT NOT NULL,
  status_at_check     TEXT NOT NULL CHECK (status_at_check IN ('VERIFIED', 'DISCREPANCY', 'UNAVAILABLE')),
  -- JSON: the comparison's figures, NULL when a source was unavailable (never a guess).
  reconciliation      TEXT,
  -- JSON: {references, unavailable, reasons}.
  evidence            TEXT NOT NULL,
  checked_at          INTEGER NOT NULL,
  expires_at          INTEGER NOT NULL,
  methodology_version TEXT NOT NULL,
  verifier_version    TEXT NOT NULL,
  -- The signed record (EIP-191 over the base64url canonical JSON payload).
  statement           TEXT NOT NULL,
  signature           TEXT NOT NULL,
  signer              TEXT NOT NULL,
  -- The metered check's own receipt (kind attestation_check).
  cost_micro_usd      INTEGER NOT NULL CHECK (cost_micro_usd >= 0),
  charge_receipt_id   TEXT NOT NULL,
  charge_receipt      TEXT NOT NULL,
  charge_signature    TEXT NOT NULL,
  charge_signer       TEXT NOT NULL,
  created_at          INTEGER NOT NULL,
  UNIQUE (account_id, asset_id, seq)
);
-- The latest version of an asset, and its history newest first.
CREATE INDEX attestation_versions_asset ON attestation_versions (account_id, asset_id, seq DESC);
-- The stale-notice pass: VERIFIED versions by the end of their freshness window.
CREATE INDEX attestation_versions_expiry ON attestation_versions (status_at_check, expires_at);

-- GET /v1/assets/:asset_id/verification takes no account: the first account to publish an
-- asset_id holds it for good, so a public link never changes hands.
CREATE TABLE attestation_public_ids (
  asset_id   TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  claimed_at INTEGER NOT NULL
);

-- attestation.stale is sent once per VERIFIED version whose window ran out while it was the
-- latest; kept apart so versions themselves are never written twice.
CREATE TABLE attestation_stale_notices (
  attestation_id TEXT PRIMARY KEY REFERENCES attestation_versions (id),
  account_id     TEXT NOT NULL,
  emitted_at     INTEGER NOT NULL
);
