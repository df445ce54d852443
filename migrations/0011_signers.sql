-- 0011: every key svc has signed receipts and statements with, and when.
-- The key itself lives sealed in <data dir>/signer.key; this table keeps only addresses, so
-- receipts signed by a retired key stay verifiable after `svc keys rotate-signer`.
-- Rows are written by src/domains/receipts/signers.ts: on open (the key file's address becomes
-- current if it is not already) and by rotation. Times are integer milliseconds.
-- owner receipts: signers
CREATE TABLE signers (
  address     TEXT PRIMARY KEY,   -- EIP-55 checksummed
  valid_from  INTEGER NOT NULL,
  valid_until INTEGER,            -- null for the current signer; set once, when it is retired
  CHECK (valid_until IS NULL OR valid_until >= valid_from)
);
-- At most one current signer.
CREATE UNIQUE INDEX signers_one_current ON signers ((valid_until IS NULL)) WHERE valid_until IS NULL;
