-- 0057: a key's lifetime spend is the sum of its months in key_spend (core/meter.ts), which every
-- settle already adds to for each key up the delegation chain, instead of a counter on api_keys
-- that every settle also updated: one row and one page fewer written per key per metered call.
-- What a key had spent that its months do not hold (none, when the two counters agreed) is kept
-- as spent_carried_micro_usd, so lifetime = spent_carried + sum(key_spend.spent) is unchanged.
ALTER TABLE api_keys RENAME COLUMN total_spent_micro_usd TO spent_carried_micro_usd;
UPDATE api_keys SET spent_carried_micro_usd = spent_carried_micro_usd - coalesce((SELECT sum(spent_micro_usd) FROM key_spend WHERE key_id = api_keys.id), 0);
