-- 0026: autopilot (docs/autopilot.md): proposals drawn from an account's usage, key spend and
-- eval results, each with its evidence (numbers and ids, never content) and the exact change
-- adopting it makes; who adopted or rejected it, and when, stays on the row as its record.
-- owner autopilot: autopilot_proposals

CREATE TABLE autopilot_proposals (
  id             TEXT PRIMARY KEY,
  -- The analysing account: its usage is the evidence, and the change applies to it.
  account_id     TEXT NOT NULL REFERENCES accounts (id),
  -- Shared with an org's members (adopt/reject then need the org's admin role); NULL: personal.
  org_id         TEXT,
  kind           TEXT NOT NULL CHECK (kind IN ('switch_model', 'set_key_cap')),
  -- What the proposal is about ("model:<id>", "key:<id>"): a re-analysis supersedes the
  -- account's open proposal of the same kind and target instead of adding a second.
  target         TEXT NOT NULL,
  status         TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'adopted', 'rejected', 'superseded')),
  summary        TEXT NOT NULL,
  -- JSON objects (models.ts describes them per kind).
  evidence       TEXT NOT NULL,
  change         TEXT NOT NULL,
  period_from    INTEGER NOT NULL,
  period_to      INTEGER NOT NULL CHECK (period_to > period_from),
  created_at     INTEGER NOT NULL,
  -- What adopting did (previous values included), once adopted.
  applied        TEXT,
  adopted_by     TEXT,
  adopted_at     INTEGER,
  rejected_by    TEXT,
  rejected_at    INTEGER,
  reject_reason  TEXT CHECK (reject_reason IS NULL OR length(reject_reason) <= 500),
  superseded_by  TEXT,
  superseded_at  INTEGER,
  CHECK ((status = 'adopted') = (adopted_at IS NOT NULL AND adopted_by IS NOT NULL AND applied IS NOT NULL)),
  CHECK ((status = 'rejected') = (rejected_at IS NOT NULL AND rejected_by IS NOT NULL)),
  CHECK ((status = 'superseded') = (superseded_at IS NOT NULL))
);
-- GET /v1/autopilot/proposals: the account's own, newest first.
CREATE INDEX autopilot_proposals_account ON autopilot_proposals (account_id, created_at DESC);
-- ...and the ones shared with the caller's orgs.
CREATE INDEX autopilot_proposals_org ON autopilot_proposals (org_id, created_at DESC) WHERE org_id IS NOT NULL;
-- At most one open proposal per account, kind and target (the supersede rule, enforced).
CREATE UNIQUE INDEX autopilot_proposals_open_target ON autopilot_proposals (account_id, kind, target) WHERE status = 'open';
