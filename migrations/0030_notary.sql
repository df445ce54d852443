-- 0030: the notary (spec §4.3 "Notary"; docs/notary.md). A notary receipt registers the
-- sha256 fingerprints of the input and output of work svc did not run, billed per receipt
-- through the meter, with a signed receipt (kind notary) stating the fingerprints. No
-- idempotency key: two posts are two rows and two receipts.
-- owner notary: notary_receipts

CREATE TABLE notary_receipts (
  -- Creation order for the listing (newest first), stable within one millisecond.
  seq            INTEGER PRIMARY KEY,
  id             TEXT NOT NULL UNIQUE,
  account_id     TEXT NOT NULL REFERENCES accounts (id),
  key_id         TEXT NOT NULL REFERENCES api_keys (id),
  input_sha256   TEXT NOT NULL CHECK (length(input_sha256) = 64),
  output_sha256  TEXT NOT NULL CHECK (length(output_sha256) = 64),
  -- The caller's short label, returned to the owner; the receipt states only its sha256.
  label          TEXT,
  -- When the caller says the work happened (ms); NULL when not stated.
  occurred_at    INTEGER,
  -- What the registration was billed (the receipt states it too).
  cost_micro_usd INTEGER NOT NULL CHECK (cost_micro_usd >= 0),
  -- The signed receipt as minted (metadata only: fingerprints, never content).
  receipt_id     TEXT NOT NULL,
  receipt        TEXT NOT NULL,
  signature      TEXT NOT NULL,
  signer         TEXT NOT NULL,
  created_at     INTEGER NOT NULL
);
-- GET /v1/notary/receipts: one account's, newest first.
CREATE INDEX notary_receipts_account ON notary_receipts (account_id, seq DESC);
