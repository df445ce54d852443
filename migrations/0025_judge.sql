-- 0025: judge (spec §4.3 "Judge", §4.1 GET /v1/judge/public/:id; docs/judge.md). A verdict of
-- 1-5 juror models is stored content-free: who asked, which models voted what, the outcome,
-- the sha256 fingerprints of the content and the verdict's signed receipt, which states those
-- fingerprints. The question, candidates, rubric and rationales are returned once and kept
-- only when the owner publishes them (judge_publications), checked against the fingerprints.
-- owner judge: judge_verdicts, judge_publications

CREATE TABLE judge_verdicts (
  -- Creation order for the listing (newest first), stable within one millisecond.
  seq                INTEGER PRIMARY KEY,
  id                 TEXT NOT NULL UNIQUE,
  account_id         TEXT NOT NULL REFERENCES accounts (id),
  key_id             TEXT NOT NULL REFERENCES api_keys (id),
  -- JSON array of the offered labels: ["A","B",…] for candidates, ["yes","no"] for a bare question.
  choices            TEXT NOT NULL,
  -- JSON array, juror order: {juror, status, choice, reason, receipt_id}. No rationale, no answer text.
  votes              TEXT NOT NULL,
  -- JSON {choices: {label: n}, abstained, failed}.
  tally              TEXT NOT NULL,
  verdict            TEXT NOT NULL,
  question_sha256    TEXT NOT NULL CHECK (length(question_sha256) = 64),
  candidates_sha256  TEXT CHECK (candidates_sha256 IS NULL OR length(candidates_sha256) = 64),
  rubric_sha256      TEXT CHECK (rubric_sha256 IS NULL OR length(rubric_sha256) = 64),
  rationales_sha256  TEXT NOT NULL CHECK (length(rationales_sha256) = 64),
  prompt_version     INTEGER NOT NULL,
  -- The verdict's own receipt, as signed (metadata only: it carries the fingerprints above).
  receipt_id         TEXT NOT NULL,
  receipt            TEXT NOT NULL,
  signature          TEXT NOT NULL,
  signer             TEXT NOT NULL,
  created_at         INTEGER NOT NULL
);
-- GET /v1/judge/verdicts: one account's, newest first.
CREATE INDEX judge_verdicts_account ON judge_verdicts (account_id, seq DESC);

-- The content of a published verdict; unpublishing deletes the row.
CREATE TABLE judge_publications (
  verdict_id    TEXT PRIMARY KEY REFERENCES judge_verdicts (id),
  question      TEXT NOT NULL,
  -- JSON array of strings, or NULL when the verdict had no candidates.
  candidates    TEXT,
  rubric        TEXT,
  -- JSON array, juror order (null for a juror without a rationale).
  rationales    TEXT NOT NULL,
  published_at  INTEGER NOT NULL
);
