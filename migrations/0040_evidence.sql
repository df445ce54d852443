-- owner evidence: evidence_retrievals
-- 0040: every retrieval of an evidence source (a custodian answer, an attestation document, an
-- ERC-20 supply read, a price quote), fingerprinted and kept. The bytes are sealed: a custodian's
-- answer names positions; only the fingerprint and the reference are ever shown by default.
CREATE TABLE evidence_retrievals (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  source_kind TEXT NOT NULL,
  source_ref TEXT NOT NULL,
  label TEXT,
  retrieved_at INTEGER NOT NULL,
  content_sha256 TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  body_sealed TEXT
);
-- The retention pass drops the oldest kept bytes first (evidence.body_retention_days).
CREATE INDEX evidence_retrievals_kept ON evidence_retrievals (retrieved_at) WHERE body_sealed IS NOT NULL;
