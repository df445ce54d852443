-- 0033: escrow claims (spec §4.4 "Escrow"; docs/payments.md "Escrow claims"). Claim inputs an
-- escrow contract can check, prepared from one of the account's own signed receipts: the
-- receipt as signed, and the inputs derived from it. One claim per receipt per account,
-- keyed by the receipt's id (the claim's request_id).
-- owner escrow: escrow_claims

CREATE TABLE escrow_claims (
  -- Creation order for the listing (newest first).
  seq         INTEGER PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  request_id  TEXT NOT NULL,
  -- The receipt and signature as posted: the inputs are re-derivable from them alone.
  receipt     TEXT NOT NULL,
  signature   TEXT NOT NULL,
  -- JSON: the claim inputs (escrow/inputs.ts).
  inputs      TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  UNIQUE (account_id, request_id)
);
CREATE INDEX escrow_claims_account ON escrow_claims (account_id, seq DESC);
