-- owner pob: pob_subjects, pob_checks
-- 0044: proof of backing. A subject is a custodian endpoint (a StoredSource of the evidence area,
-- its credential sealed) watched on a schedule, with an optional supply to compare the reported
-- reserve against (a claimed figure or a second evidence source). Its slug is its public name:
-- unique across all accounts and never freed, since subjects are never deleted.
-- Each check is published as the canonical line its sha256 and signature were computed over.
-- Checks are append-only (published checks stay public; no route removes them).
CREATE TABLE pob_subjects (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  reserve_source TEXT NOT NULL,
  claimed_supply TEXT,
  supply_source TEXT,
  interval_s INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'retired')),
  next_check_at INTEGER,
  last_manual_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  retired_at INTEGER
);
CREATE INDEX pob_subjects_account ON pob_subjects (account_id, created_at);
CREATE INDEX pob_subjects_due ON pob_subjects (next_check_at) WHERE status = 'active';
CREATE TRIGGER pob_subjects_kept BEFORE DELETE ON pob_subjects
  BEGIN SELECT RAISE(ABORT, 'proof-of-backing subjects are never deleted (their slugs stay reserved)'); END;

CREATE TABLE pob_checks (
  subject_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  account_id TEXT NOT NULL,
  checked_at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('BACKED', 'UNDERBACKED', 'REPORTED', 'UNAVAILABLE')),
  reserve TEXT,
  supply TEXT,
  reason TEXT,
  triggered_by TEXT NOT NULL CHECK (triggered_by IN ('schedule', 'owner')),
  line TEXT NOT NULL,
  line_sha256 TEXT NOT NULL,
  signature TEXT NOT NULL,
  signer TEXT NOT NULL,
  evidence TEXT NOT NULL,
  PRIMARY KEY (subject_id, seq)
) WITHOUT ROWID;
CREATE TRIGGER pob_checks_append_only_update BEFORE UPDATE ON pob_checks
  BEGIN SELECT RAISE(ABORT, 'proof-of-backing checks are append-only'); END;
CREATE TRIGGER pob_checks_append_only_delete BEFORE DELETE ON pob_checks
  BEGIN SELECT RAISE(ABORT, 'proof-of-backing checks are append-only'); END;
