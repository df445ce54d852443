-- 0023: guardrails (docs/guardrails.md) and account model routes (docs/autopilot.md).
-- owner guardrails: guardrails, guardrail_blocks
-- owner inference: account_model_routes

-- A guardrail's detectors are JSON (type, direction, action, options), checked by the
-- guardrails service on the way in; scope lists (key ids, model ids) are JSON arrays or NULL
-- for "every key" / "every model". Deleting a guardrail is a hard delete: the receipts it
-- stamped keep its id, and its blocks below keep theirs.
CREATE TABLE guardrails (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  detectors   TEXT NOT NULL,
  scope_keys  TEXT,
  scope_models TEXT,
  created_at  INTEGER NOT NULL
);
CREATE INDEX guardrails_account ON guardrails (account_id, created_at);

-- A blocked call bills nothing, so it has no receipt to carry its stamp: it is recorded here,
-- content-free (which detector, which direction, which key and model), for the findings list.
CREATE TABLE guardrail_blocks (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  id           TEXT NOT NULL UNIQUE,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  guardrail_id TEXT NOT NULL,
  detector     TEXT NOT NULL,
  direction    TEXT NOT NULL CHECK (direction IN ('input', 'output')),
  key_id       TEXT,
  model        TEXT NOT NULL,
  api          TEXT NOT NULL,
  created_at   INTEGER NOT NULL
);
CREATE INDEX guardrail_blocks_account ON guardrail_blocks (account_id, seq);

-- An account's standing instruction that its requests for one model are served by another
-- (set by adopting an autopilot switch_model proposal). One route per source model.
CREATE TABLE account_model_routes (
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  from_model  TEXT NOT NULL,
  to_model    TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (account_id, from_model)
) WITHOUT ROWID;
