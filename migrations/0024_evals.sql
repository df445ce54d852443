-- 0024: evals (docs/evals.md).
-- owner evals: evals, eval_runs, eval_monitors

-- An eval's cases are the owner's prompts and expected answers, possibly proprietary: they are
-- sealed (core/seal.ts, AAD bound to the account and the eval id) as one JSON array. What is in
-- clear is what the list shows: the name, the model, the threshold and how many cases of each
-- assert kind. Evals are never edited, only created and deleted.
CREATE TABLE evals (
  id          TEXT PRIMARY KEY,                                   -- eval_…
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  model       TEXT NOT NULL,
  threshold   REAL NOT NULL CHECK (threshold BETWEEN 0 AND 1),
  case_count  INTEGER NOT NULL CHECK (case_count BETWEEN 1 AND 100),
  asserts     TEXT NOT NULL,                                      -- {"exact": n, …}: counts only
  cases       TEXT NOT NULL,                                      -- sealed JSON array of the cases
  created_at  INTEGER NOT NULL
);
CREATE INDEX evals_account ON evals (account_id, created_at);

-- One run of an eval against one model. Content-free: per-case results hold a verdict, a fixed
-- reason phrase, the sha256 of the model's output, the cost and the receipt id, never the
-- output's text. A failed run (402, an upstream error) is kept with what it had spent. The
-- newest 200 runs of an eval are kept; deleting the eval deletes its runs.
CREATE TABLE eval_runs (
  seq                INTEGER PRIMARY KEY AUTOINCREMENT,            -- order of storing: "newest" and "previous"
  id                 TEXT NOT NULL UNIQUE,                         -- erun_…
  account_id         TEXT NOT NULL REFERENCES accounts (id),
  eval_id            TEXT NOT NULL,
  model              TEXT NOT NULL,
  source             TEXT NOT NULL CHECK (source IN ('manual', 'monitor')),
  monitor_id         TEXT,
  status             TEXT NOT NULL CHECK (status IN ('completed', 'failed')),
  error_type         TEXT,
  error_message      TEXT,
  passed             INTEGER,                                      -- NULL when failed
  total              INTEGER NOT NULL,
  pass_rate          REAL CHECK (pass_rate IS NULL OR pass_rate BETWEEN 0 AND 1),
  threshold          REAL NOT NULL,
  passed_threshold   INTEGER NOT NULL CHECK (passed_threshold IN (0, 1)),
  regression         INTEGER NOT NULL CHECK (regression IN (0, 1)),
  previous_run_id    TEXT,
  previous_pass_rate REAL,
  cost_micro_usd     INTEGER NOT NULL CHECK (cost_micro_usd >= 0),
  receipt_ids        TEXT NOT NULL,                                -- JSON array
  results            TEXT NOT NULL,                                -- JSON array, content-free
  created_at         INTEGER NOT NULL,                             -- when the run started
  completed_at       INTEGER NOT NULL
);
CREATE INDEX eval_runs_eval ON eval_runs (eval_id, seq);
CREATE INDEX eval_runs_account ON eval_runs (account_id, status, eval_id, model, seq);

-- A drift monitor: runs its eval every interval_s (at least an hour) and emits
-- eval_drift_detected when the pass rate fell by drop_threshold or more from the run before.
-- next_run_at is the truth of when it is due; a scheduler job per due time carries it out.
CREATE TABLE eval_monitors (
  id              TEXT PRIMARY KEY,                                -- emon_…
  account_id      TEXT NOT NULL REFERENCES accounts (id),
  eval_id         TEXT NOT NULL,
  model           TEXT NOT NULL,
  interval_s      INTEGER NOT NULL CHECK (interval_s >= 3600),
  drop_threshold  REAL NOT NULL CHECK (drop_threshold > 0 AND drop_threshold <= 1),
  enabled         INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  next_run_at     INTEGER NOT NULL,
  last_run_at     INTEGER,
  last_run_id     TEXT,
  last_error_type TEXT,
  last_error_message TEXT,
  last_drift_at   INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE INDEX eval_monitors_account ON eval_monitors (account_id, created_at);
CREATE INDEX eval_monitors_eval ON eval_monitors (eval_id);
