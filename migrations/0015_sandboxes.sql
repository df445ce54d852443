-- 0015: code sandboxes (docs/sandboxes.md). Sessions and the runs billed in them or alone,
-- snapshot metadata (the archive stays on the backend that made it), Idempotency-Key results
-- (sealed: outputs are user content), and the keyless terminal's spend per UTC day. Code,
-- stdin and output are never stored in the clear; receipts carry metadata only.
-- owner sandboxes: sandbox_sessions, sandbox_runs, sandbox_snapshots, sandbox_idempotency, terminal_spend

CREATE TABLE sandbox_sessions (
  id                    TEXT PRIMARY KEY,                 -- sbs_…
  account_id            TEXT NOT NULL REFERENCES accounts (id),
  key_id                TEXT,                             -- the key that opened it: alive time is billed to it
  run_id                TEXT,                             -- svc_run_id: alive-time receipts (and execs by default) chain into it
  language              TEXT,                             -- default language of `code` execs
  node_id               TEXT,                             -- NULL: the gateway's own runner
  workspace_ref         TEXT NOT NULL,                    -- the backend's name for the workspace
  snapshot_id           TEXT,                             -- started from this snapshot
  status                TEXT NOT NULL CHECK (status IN ('live', 'stopped')),
  stop_reason           TEXT CHECK (stop_reason IS NULL OR stop_reason IN ('requested', 'idle_timeout', 'max_lifetime', 'insufficient_credit', 'node_unreachable')),
  idle_timeout_secs     INTEGER NOT NULL,
  max_lifetime_secs     INTEGER NOT NULL,
  created_at            INTEGER NOT NULL,
  last_active_at        INTEGER NOT NULL,
  stopped_at            INTEGER,
  billed_until          INTEGER NOT NULL,                 -- alive time is settled up to here (ms)
  period_hold           TEXT,                             -- JSON meter reservation of the alive time held ahead; NULL when none
  exec_count            INTEGER NOT NULL DEFAULT 0,
  exec_cost_micro_usd   INTEGER NOT NULL DEFAULT 0 CHECK (exec_cost_micro_usd >= 0),
  alive_cost_micro_usd  INTEGER NOT NULL DEFAULT 0 CHECK (alive_cost_micro_usd >= 0)
);
CREATE INDEX sandbox_sessions_account ON sandbox_sessions (account_id, created_at DESC);
CREATE INDEX sandbox_sessions_live ON sandbox_sessions (status, node_id);

-- Every billed execution: one-shots (session_id NULL) and session execs. Metadata only.
CREATE TABLE sandbox_runs (
  id              TEXT PRIMARY KEY,                       -- sbx_…
  account_id      TEXT NOT NULL REFERENCES accounts (id),
  key_id          TEXT,
  session_id      TEXT,
  node_id         TEXT,
  language        TEXT,
  status          TEXT NOT NULL,                          -- ok, error, timeout, killed
  exit_code       INTEGER,
  timed_out       INTEGER NOT NULL DEFAULT 0,
  duration_ms     INTEGER NOT NULL,
  cost_micro_usd  INTEGER NOT NULL CHECK (cost_micro_usd >= 0),
  receipt_id      TEXT,
  usage_event_id  TEXT,
  run_id          TEXT,
  created_at      INTEGER NOT NULL
);
CREATE INDEX sandbox_runs_account ON sandbox_runs (account_id, created_at DESC);
CREATE INDEX sandbox_runs_session ON sandbox_runs (session_id, created_at DESC) WHERE session_id IS NOT NULL;

CREATE TABLE sandbox_snapshots (
  id          TEXT PRIMARY KEY,                           -- snap_…
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  session_id  TEXT NOT NULL,
  node_id     TEXT,                                       -- where the archive is; NULL: the gateway
  bytes       INTEGER NOT NULL,
  created_at  INTEGER NOT NULL
);
CREATE INDEX sandbox_snapshots_account ON sandbox_snapshots (account_id, created_at DESC);

-- The first result for an Idempotency-Key, per account, for 24 hours (pruned by a job).
CREATE TABLE sandbox_idempotency (
  account_id      TEXT NOT NULL,
  key             TEXT NOT NULL,
  scope           TEXT NOT NULL,                          -- the route (and session) it was used on
  request_sha256  TEXT NOT NULL,                          -- the request it was first used with
  state           TEXT NOT NULL CHECK (state IN ('pending', 'done')),
  status          INTEGER,
  response        TEXT,                                   -- sealed JSON: status body and headers
  created_at      INTEGER NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX sandbox_idempotency_created ON sandbox_idempotency (created_at);

CREATE TABLE terminal_spend (
  day              TEXT PRIMARY KEY,                      -- UTC date, YYYY-MM-DD
  spent_micro_usd  INTEGER NOT NULL DEFAULT 0 CHECK (spent_micro_usd >= 0),
  runs             INTEGER NOT NULL DEFAULT 0
);
