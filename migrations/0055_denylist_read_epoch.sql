-- 0055: denylist (area admin) moves the read cache's counter (0053, src/core/read-cache.ts)
-- when a digest is added or removed: every request body's check first asks the cache whether
-- the list has any entry at all (src/domains/admin/denylist.ts), so the usual empty list costs
-- no read per request. A hit's bookkeeping (hits, last_hit_at) and a new reason do not change
-- what is listed and are not watched.
CREATE TRIGGER denylist_read_epoch_insert AFTER INSERT ON denylist
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER denylist_read_epoch_delete AFTER DELETE ON denylist
  BEGIN UPDATE read_epoch SET n = n + 1 WHERE id = 1; END;
