-- 0058: operator metrics count outbox events by type without an index on type (core/outbox.ts
-- countsByType: a tally kept in memory from the rows after the last counted seq, and a window
-- from its first seq, found by bisecting seq). The index cost a page on every event's insert —
-- one per metered call — and made every metrics scrape read all of it.
DROP INDEX outbox_type_time;
