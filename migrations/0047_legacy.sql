-- owner legacy: legacy_plans, legacy_beneficiaries, legacy_attesters, legacy_confirmations, legacy_objects, legacy_history
-- 0047: legacy plans, a dead-man's switch (spec §4.4 "Legacy", §4.1 claim link, §3 legacy rows,
-- §2.6 claim link; docs/legacy.md). An owner checks in every checkin_interval_s; a missed
-- deadline starts a warning of warning_period_s; after it (and, with attesters, after enough of
-- them confirmed or the hold ran out) the plan is released and each beneficiary may open it once.
-- Content is sealed with the master key (AAD bound to plan and object); claim tokens are kept
-- only as sha256. Cancelling nulls the ciphertexts and the token digests; rows stay content-free.

CREATE TABLE legacy_plans (
  -- Creation order for the listings (newest first), stable within one millisecond.
  seq                  INTEGER PRIMARY KEY,
  id                   TEXT NOT NULL UNIQUE,
  account_id           TEXT NOT NULL REFERENCES accounts (id),
  name                 TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('active', 'warning', 'released', 'claimed', 'cancelled')),
  checkin_interval_s   INTEGER NOT NULL CHECK (checkin_interval_s > 0),
  warning_period_s     INTEGER NOT NULL CHECK (warning_period_s > 0),
  -- 0: no attesters (no brake). Otherwise confirmations needed before release, until max_hold_s ran out.
  attesters_required   INTEGER NOT NULL CHECK (attesters_required >= 0),
  max_hold_s           INTEGER CHECK (max_hold_s IS NULL OR max_hold_s > 0),
  last_checkin_at      INTEGER NOT NULL,
  deadline_at          INTEGER NOT NULL,
  warning_started_at   INTEGER,
  released_at          INTEGER,
  -- timer (no brake), attesters (enough confirmed) or hold_expired (max_hold_s ran out).
  release_reason       TEXT CHECK (release_reason IS NULL OR release_reason IN ('timer', 'attesters', 'hold_expired')),
  claimed_at           INTEGER,
  cancelled_at         INTEGER,
  object_count         INTEGER NOT NULL DEFAULT 0 CHECK (object_count >= 0),
  content_bytes        INTEGER NOT NULL DEFAULT 0 CHECK (content_bytes >= 0),
  content_updated_at   INTEGER,
  -- When the sweep must look at the plan next; NULL once nothing more is timed (released, claimed, cancelled).
  next_check_at        INTEGER,
  created_at           INTEGER NOT NULL
);
CREATE INDEX legacy_plans_account ON legacy_plans (account_id, seq DESC);
CREATE INDEX legacy_plans_due ON legacy_plans (next_check_at) WHERE next_check_at IS NOT NULL;

CREATE TABLE legacy_beneficiaries (
  id                   TEXT PRIMARY KEY,
  plan_id              TEXT NOT NULL REFERENCES legacy_plans (id),
  position             INTEGER NOT NULL,
  label                TEXT,
  -- Lowercase 0x address; NULL: the claim token alone identifies the beneficiary.
  wallet               TEXT,
  -- sha256 of the claim token; NULL once the plan was cancelled (the link answers 404).
  token_sha256         TEXT UNIQUE CHECK (token_sha256 IS NULL OR length(token_sha256) = 64),
  claimed_at           INTEGER,
  claimed_by_account   TEXT,
  UNIQUE (plan_id, position)
);
CREATE INDEX legacy_beneficiaries_wallet ON legacy_beneficiaries (wallet) WHERE wallet IS NOT NULL;
CREATE INDEX legacy_beneficiaries_claimer ON legacy_beneficiaries (claimed_by_account) WHERE claimed_by_account IS NOT NULL;

CREATE TABLE legacy_attesters (
  plan_id              TEXT NOT NULL REFERENCES legacy_plans (id),
  -- Lowercase 0x address: whoever signs in with it acts as this attester.
  wallet               TEXT NOT NULL,
  position             INTEGER NOT NULL,
  PRIMARY KEY (plan_id, wallet)
) WITHOUT ROWID;
CREATE INDEX legacy_attesters_wallet ON legacy_attesters (wallet);

-- Confirmations in the current warning, one per attesting account; a check-in deletes them.
CREATE TABLE legacy_confirmations (
  plan_id              TEXT NOT NULL REFERENCES legacy_plans (id),
  account_id           TEXT NOT NULL,
  wallet               TEXT NOT NULL,
  confirmed_at         INTEGER NOT NULL,
  PRIMARY KEY (plan_id, account_id)
) WITHOUT ROWID;

CREATE TABLE legacy_objects (
  id                   TEXT PRIMARY KEY,
  plan_id              TEXT NOT NULL REFERENCES legacy_plans (id),
  position             INTEGER NOT NULL,
  name                 TEXT NOT NULL,
  bytes                INTEGER NOT NULL CHECK (bytes >= 0),
  -- core/seal.ts text of the bytes; NULL once the plan was cancelled.
  sealed               TEXT,
  UNIQUE (plan_id, position)
);

-- What happened to a plan, content-free: kept through cancellation.
CREATE TABLE legacy_history (
  seq                  INTEGER PRIMARY KEY,
  plan_id              TEXT NOT NULL REFERENCES legacy_plans (id),
  at                   INTEGER NOT NULL,
  event                TEXT NOT NULL,
  detail               TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX legacy_history_plan ON legacy_history (plan_id, seq);
