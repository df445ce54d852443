-- 0051: narrower indexes on the metered path (issue 23: fewer pages written per call).
-- holds_open_expiry indexed every hold ever made by (status, expires_at), so closing a hold
-- moved its entry from the 'open' run to the 'captured' one: two index pages per settle for an
-- index only the sweeper reads, and only for open holds. It now holds the open ones alone.
-- ledger_kind_time is read for credits, debits and adjustments only (admin metrics, paying
-- accounts, spend per account); the hold and release rows every metered call writes no longer
-- enter it. Readers name the same kinds in their WHERE so SQLite may use the partial index.
DROP INDEX holds_open_expiry;
CREATE INDEX holds_open_expiry ON holds (expires_at) WHERE status = 'open';
DROP INDEX ledger_kind_time;
CREATE INDEX ledger_kind_time ON ledger_entries (kind, created_at) WHERE kind IN ('credit', 'debit', 'adjustment');
