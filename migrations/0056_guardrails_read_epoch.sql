-- 0056: guardrails (area guardrails) moves the read cache's counter (0053, src/core/read-cache.ts)
-- when an account gains or loses a guardrail: every inference call asks which guardrails its
-- account has (src/domains/guardrails/guard.ts guardFor, through store.ts guardrailIdsOf), and
-- most accounts have none, so the answer comes from the cache instead of a read per call. A
-- guardrail is never updated in place (created, then deleted); an update is watched all the same.
CREATE TRIGGER guardrails_read_epoch_insert AFTER INSERT ON guardrails
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER guardrails_read_epoch_update AFTER UPDATE ON guardrails
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER guardrails_read_epoch_delete AFTER DELETE ON guardrails
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
