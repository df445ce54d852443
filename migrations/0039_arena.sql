-- 0039: arena (spec §4.1 GET /v1/arena/*; docs/arena.md). Operator-defined suites of eval cases,
-- each version of a suite fixed once added (`svc arena suites add`), and benchmark runs of a
-- model over one suite version: every case call metered and receipted on the operator's account,
-- the run's record content-free and signed.
-- owner arena: arena_suites, arena_runs

-- One methodology version of a suite. A version is never edited: changed cases are a new
-- methodology_version, so every run on a version measured the same thing. The newest version
-- of a slug (highest seq) is the current one. The cases are sealed at rest (AAD: slug and
-- version); cases_sha256 (canonical JSON of the cases) is in clear, and the cases themselves are
-- served only when the operator published them (publish_cases).
CREATE TABLE arena_suites (
  seq                  INTEGER PRIMARY KEY AUTOINCREMENT,
  slug                 TEXT NOT NULL,
  methodology_version  TEXT NOT NULL,
  name                 TEXT NOT NULL,
  description          TEXT,
  -- The judge of judge cases that name none: never the model under test.
  judge_model          TEXT,
  publish_cases        INTEGER NOT NULL CHECK (publish_cases IN (0, 1)),
  case_count           INTEGER NOT NULL CHECK (case_count >= 1),
  asserts              TEXT NOT NULL,                           -- {"exact": n, …}: counts only
  cases_sha256         TEXT NOT NULL CHECK (length(cases_sha256) = 64),
  -- sha256 of the canonical JSON of the whole definition: adding it again is "no change".
  definition_sha256    TEXT NOT NULL CHECK (length(definition_sha256) = 64),
  cases                TEXT NOT NULL,                           -- sealed JSON array
  created_at           INTEGER NOT NULL,
  UNIQUE (slug, methodology_version)
);

-- One benchmark run of a model over one suite version, paid by account_id (the operator's).
-- Content-free: per-case verdicts, fixed reason phrases, sha256 of outputs, costs and receipt
-- ids. Each case call's receipt is chained into the run (its run_id is the run's id). The signed
-- statement states the suite, its methodology version, the model, passed/total and every
-- receipt id. A failed run (402, an upstream error) is kept with what it had spent.
CREATE TABLE arena_runs (
  seq                  INTEGER PRIMARY KEY AUTOINCREMENT,
  id                   TEXT NOT NULL UNIQUE,                    -- arun_…
  suite_slug           TEXT NOT NULL,
  methodology_version  TEXT NOT NULL,
  account_id           TEXT NOT NULL REFERENCES accounts (id),
  model                TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('completed', 'failed')),
  error_type           TEXT,
  error_message        TEXT,
  passed               INTEGER,                                 -- NULL when failed
  total                INTEGER NOT NULL,
  cost_micro_usd       INTEGER NOT NULL CHECK (cost_micro_usd >= 0),
  receipt_ids          TEXT NOT NULL,                           -- JSON array
  results              TEXT NOT NULL,                           -- JSON array, content-free
  statement            TEXT NOT NULL,
  signature            TEXT NOT NULL,
  signer               TEXT NOT NULL,
  created_at           INTEGER NOT NULL,                        -- when the run started
  completed_at         INTEGER NOT NULL,
  FOREIGN KEY (suite_slug, methodology_version) REFERENCES arena_suites (slug, methodology_version)
);
-- The leaderboard: each model's newest completed run on a suite version.
CREATE INDEX arena_runs_board ON arena_runs (suite_slug, methodology_version, status, model, seq);
