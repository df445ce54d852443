-- owner benchmarks: benchmarks, benchmark_results
-- 0043: portfolio benchmarks. A benchmark keeps only what peers are compared on (period, bands,
-- the period return, per-class weights inside its results); the holdings themselves are sealed
-- and destroyed by their retention (holdings_sealed NULL once destroyed, or never written for
-- retention "none"). Results are versions, never overwritten: each one a signed statement.
CREATE TABLE benchmarks (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  key_id TEXT,
  label TEXT,
  period TEXT NOT NULL,
  mix_band TEXT NOT NULL,
  size_band TEXT NOT NULL,
  cohort TEXT NOT NULL,
  return_bps INTEGER NOT NULL,
  methodology_version TEXT NOT NULL,
  privacy_tier TEXT NOT NULL,
  retention TEXT NOT NULL,
  holdings_count INTEGER NOT NULL,
  holdings_sealed TEXT,
  holdings_expires_at INTEGER,
  holdings_destroyed_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX benchmarks_cohort ON benchmarks (cohort, methodology_version, account_id);
CREATE INDEX benchmarks_period ON benchmarks (period);
CREATE INDEX benchmarks_holdings_expiry ON benchmarks (holdings_expires_at) WHERE holdings_sealed IS NOT NULL;

CREATE TABLE benchmark_results (
  benchmark_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  statement TEXT NOT NULL,
  signature TEXT NOT NULL,
  signer TEXT NOT NULL,
  receipt_id TEXT,
  computed_at INTEGER NOT NULL,
  PRIMARY KEY (benchmark_id, seq)
);
