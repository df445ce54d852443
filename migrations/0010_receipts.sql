-- 0010: signed receipts, one per settled billable action (metadata only, never content).
-- owner receipts: receipts
CREATE TABLE receipts (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  id             TEXT NOT NULL UNIQUE,
  account_id     TEXT NOT NULL REFERENCES accounts (id),
  key_id         TEXT REFERENCES api_keys (id),
  usage_event_id TEXT NOT NULL,
  kind           TEXT NOT NULL,
  status         TEXT NOT NULL,
  cost_micro_usd INTEGER NOT NULL,
  run_id         TEXT,
  -- base64url(canonical JSON payload) and its EIP-191 signature, exactly as handed out.
  receipt        TEXT NOT NULL,
  signature      TEXT NOT NULL,
  signer         TEXT NOT NULL,
  created_at     INTEGER NOT NULL,
  -- Set while the owner shares it publicly (GET /v1/receipts/shared/:id).
  shared_at      INTEGER
);
CREATE INDEX receipts_account ON receipts (account_id, seq);
CREATE INDEX receipts_run ON receipts (run_id, seq) WHERE run_id IS NOT NULL;
CREATE INDEX receipts_shared ON receipts (shared_at) WHERE shared_at IS NOT NULL;
