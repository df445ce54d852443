-- 0014: inference. A key may carry a privacy tier (svc_privacy_tier overrides it per call; NULL:
-- "standard"), and the keyless assistant keeps its spend per UTC day, so its global daily budget
-- survives restarts. Nothing of an assistant conversation is stored: only the day's total.
-- owner inference: assistant_spend

ALTER TABLE api_keys ADD COLUMN privacy_tier TEXT CHECK (privacy_tier IS NULL OR privacy_tier IN ('standard', 'zero_retention', 'confidential'));

CREATE TABLE assistant_spend (
  day             TEXT PRIMARY KEY,            -- UTC date, YYYY-MM-DD
  spent_micro_usd INTEGER NOT NULL DEFAULT 0 CHECK (spent_micro_usd >= 0),
  requests        INTEGER NOT NULL DEFAULT 0
);
