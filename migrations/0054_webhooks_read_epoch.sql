-- 0054: webhooks (area webhooks) moves the read cache's counter (0053, src/core/read-cache.ts)
-- when an account gains or loses a live webhook: the event fan-out reads the set of such
-- accounts through the cache (src/domains/webhooks/live-accounts.ts). Delivery bookkeeping
-- (consecutive_failures, disabled_reason alone) does not change the set and is not watched.
CREATE TRIGGER webhooks_read_epoch_insert AFTER INSERT ON webhooks
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER webhooks_read_epoch_update AFTER UPDATE OF account_id, disabled_at ON webhooks
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER webhooks_read_epoch_delete AFTER DELETE ON webhooks
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
