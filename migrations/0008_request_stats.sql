-- 0008: request metrics for POST /v1/reports/sla, and a time index for usage summaries.
-- owner reports: request_stats

-- Answered HTTP requests, aggregated per UTC minute and route template. The gateway counts in
-- memory (a few increments per request) and a recurring job merges the counts here every
-- minute, so the SLA report survives restarts without a write per request. Aggregate only:
-- route templates (/v1/keys/:id), never raw paths, accounts or anything a request carried.
CREATE TABLE request_stats (
  -- Start of the minute, ms since the Unix epoch.
  minute     INTEGER NOT NULL,
  -- GET, POST, … ("OTHER" for anything unusual, so junk methods cannot grow the table).
  method     TEXT NOT NULL,
  -- Route template, or "unmatched" for requests no route answered.
  route      TEXT NOT NULL,
  requests   INTEGER NOT NULL CHECK (requests >= 0),
  errors_5xx INTEGER NOT NULL CHECK (errors_5xx >= 0),
  -- Slowest request of the minute, in whole microseconds (bounds the top percentile).
  max_us     INTEGER NOT NULL CHECK (max_us >= 0),
  -- Latency histogram: JSON object {bucket index: count}, non-zero buckets only. The bucket
  -- bounds are fixed in src/domains/reports/latency-histogram.ts; changing them needs a new table.
  buckets    TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (minute, method, route)
) WITHOUT ROWID;

-- Usage summaries and statements select an account's events by time.
CREATE INDEX usage_events_account_time ON usage_events (account_id, created_at);
