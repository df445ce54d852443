-- 0053: the read cache's counter (core, src/core/read-cache.ts) and the triggers that move it.
-- owner core: read_epoch
-- read_epoch is core's; each trigger belongs to the area that owns its table (keys: api_keys;
-- accounts: accounts; inference: account_model_routes) and names the columns that area serves
-- from the cache. A trigger runs in every writer's transaction — any code path, any process —
-- so a cached copy is dropped whenever what it copied changes. A migration that adds a column
-- the cache must follow extends its table's trigger (test/core/read-cache.test.ts checks that
-- api_keys' trigger covers every column but the lifetime spend each settle writes).
CREATE TABLE read_epoch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  n  INTEGER NOT NULL
);
INSERT INTO read_epoch (id, n) VALUES (1, 0);

-- keys: the principal (token, scopes, validity, rotation), the meter's chain (parent, limits,
-- allow-lists, freeze) and the privacy tier. total_spent_micro_usd is left out: every settle
-- writes it, and the meter reads it from the row (core/meter.ts capHit).
CREATE TRIGGER api_keys_read_epoch_insert AFTER INSERT ON api_keys
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER api_keys_read_epoch_update
  AFTER UPDATE OF id, account_id, token_sha256, prefix, name, created_at, expires_at, revoked_at, kind, parent_id, depth, scopes,
    monthly_cap_micro_usd, total_cap_micro_usd, breaker_micro_usd_per_minute, frozen_at, frozen_reason, allowed_models,
    allowed_services, not_before, rotated_to, grace_until, privacy_tier ON api_keys
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER api_keys_read_epoch_delete AFTER DELETE ON api_keys
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;

-- accounts: the suspension every authenticated request checks (not the balances each call writes).
CREATE TRIGGER accounts_read_epoch_insert AFTER INSERT ON accounts
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER accounts_read_epoch_update AFTER UPDATE OF id, suspended_at ON accounts
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER accounts_read_epoch_delete AFTER DELETE ON accounts
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;

-- inference: the account's model routes. Inserts count everywhere: an absent row is cached too.
CREATE TRIGGER account_model_routes_read_epoch_insert AFTER INSERT ON account_model_routes
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER account_model_routes_read_epoch_update AFTER UPDATE ON account_model_routes
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER account_model_routes_read_epoch_delete AFTER DELETE ON account_model_routes
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
