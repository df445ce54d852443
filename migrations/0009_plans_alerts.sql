-- 0009: plan subscriptions and balance alerts (docs/plans.md).
-- The plan catalogue itself lives in configuration (plans[]), not here: rows name a plan by id.
-- owner billing: subscriptions, subscription_charges, billing_alerts

-- One row per subscription term: from subscribing (or switching) to a plan until the term
-- ends. A term renews period by period; status 'cancelled' still runs to the end of the paid
-- period. An account with no live term is on the deployment's default (zero-fee) plan.
CREATE TABLE subscriptions (
  id                   TEXT PRIMARY KEY,
  account_id           TEXT NOT NULL REFERENCES accounts (id),
  plan_id              TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('active', 'cancelled', 'ended')),
  -- Periods are calendar months counted from started_at (the anchor), so renewals do not drift.
  started_at           INTEGER NOT NULL,
  periods              INTEGER NOT NULL CHECK (periods >= 1),
  current_period_start INTEGER NOT NULL,
  current_period_end   INTEGER NOT NULL CHECK (current_period_end > current_period_start),
  cancelled_at         INTEGER,
  ended_at             INTEGER,
  -- Why a term ended: cancelled (ran to period end), insufficient_credit (renewal fee not
  -- covered: lapsed), switched (another plan chosen), plan_withdrawn (gone from the catalogue).
  end_reason           TEXT CHECK (end_reason IS NULL OR end_reason IN ('cancelled', 'insufficient_credit', 'switched', 'plan_withdrawn')),
  created_at           INTEGER NOT NULL,
  CHECK ((status = 'ended') = (ended_at IS NOT NULL AND end_reason IS NOT NULL))
);
-- At most one live term per account.
CREATE UNIQUE INDEX subscriptions_live ON subscriptions (account_id) WHERE status IN ('active', 'cancelled');
CREATE INDEX subscriptions_account ON subscriptions (account_id, created_at);

-- Every period a term was charged for (fee 0 included). UNIQUE (subscription, period_start)
-- is what makes a renewal job that runs twice charge once.
CREATE TABLE subscription_charges (
  id              TEXT PRIMARY KEY,
  subscription_id TEXT NOT NULL REFERENCES subscriptions (id),
  account_id      TEXT NOT NULL REFERENCES accounts (id),
  plan_id         TEXT NOT NULL,
  period_start    INTEGER NOT NULL,
  period_end      INTEGER NOT NULL,
  fee_micro_usd   INTEGER NOT NULL CHECK (fee_micro_usd >= 0),
  -- The ledger debit; NULL for a zero fee (the ledger records no zero movements).
  ledger_entry_id TEXT REFERENCES ledger_entries (id),
  created_at      INTEGER NOT NULL,
  UNIQUE (subscription_id, period_start)
);
CREATE INDEX subscription_charges_account ON subscription_charges (account_id, created_at);

-- An account's own balance_low threshold (NULL: the deployment default) and when the alert
-- last fired. No row = default threshold, never fired. Whether the alert is armed is not
-- stored: it is balance >= threshold, so it follows threshold changes and config changes.
CREATE TABLE billing_alerts (
  account_id            TEXT PRIMARY KEY REFERENCES accounts (id),
  balance_low_micro_usd INTEGER CHECK (balance_low_micro_usd IS NULL OR balance_low_micro_usd >= 0),
  last_fired_at         INTEGER,
  updated_at            INTEGER NOT NULL
);
