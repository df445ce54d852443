-- 0013: outbound webhooks (spec §3 Webhook rows, §4.4, §6; docs/webhooks.md).
-- Events come from outbox_events (0001); a fan-out cursor turns each committed event into one
-- delivery row per subscribed webhook, and every attempt is a scheduler job.
-- owner webhooks: webhooks, webhook_deliveries, webhook_fanout

CREATE TABLE webhooks (
  id                   TEXT PRIMARY KEY,
  account_id           TEXT NOT NULL REFERENCES accounts (id),
  url                  TEXT NOT NULL,
  -- JSON array of event types, or ["*"] for every type.
  events               TEXT NOT NULL,
  description          TEXT,
  -- The whsec_… secret, sealed with the master key (AAD binds it to this webhook id): deliveries
  -- must compute the HMAC with it, so unlike bearer tokens it cannot be kept as a hash.
  secret_sealed        TEXT NOT NULL,
  -- The outbox position at creation: only later events are this webhook's (replay never reaches back past it).
  after_seq            INTEGER NOT NULL,
  -- Events in a row that failed every attempt; 5 disables the webhook, one delivered event resets it.
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  created_at           INTEGER NOT NULL,
  disabled_at          INTEGER,
  -- 'revoked': DELETEd by its owner (final); 'failing': disabled by the 5-failures rule (POST …/enable lifts it).
  disabled_reason      TEXT CHECK (disabled_reason IN ('revoked', 'failing')),
  CHECK ((disabled_at IS NULL) = (disabled_reason IS NULL))
);
CREATE INDEX webhooks_account ON webhooks (account_id, created_at);

-- One row per (webhook, event): its attempts and last outcome. Pruned 30 days after its last change.
CREATE TABLE webhook_deliveries (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id      TEXT NOT NULL REFERENCES webhooks (id),
  event_id        TEXT NOT NULL,
  event_seq       INTEGER NOT NULL,
  event_type      TEXT NOT NULL,
  status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'skipped')),
  -- A replay starts a new round: its attempt jobs carry the round, so a stale job of an earlier round does nothing.
  round           INTEGER NOT NULL DEFAULT 1,
  attempts        INTEGER NOT NULL DEFAULT 0,
  response_status INTEGER,
  last_error      TEXT,
  next_attempt_at INTEGER,
  delivered_at    INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (webhook_id, event_seq);
CREATE INDEX webhook_deliveries_age ON webhook_deliveries (updated_at);

-- How far the fan-out has read outbox_events (one row). Starts at the current end: no webhook
-- existed before this migration, so no earlier event has a subscriber.
CREATE TABLE webhook_fanout (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  last_seq INTEGER NOT NULL
);
INSERT INTO webhook_fanout (id, last_seq) SELECT 1, coalesce(max(seq), 0) FROM outbox_events;
