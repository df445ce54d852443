-- 0020: hosted agents (spec §4.4 Hosted agents, §4.1 POST /v1/agents/:id/hooks/:token, §4.3
-- /v1/agents/:id/messages; docs/agents.md). An agent runs under its own delegated API key
-- (key_id); its instructions, every run's input and output, and every mailbox message are
-- sealed with the master key (AAD bound to the row and field). A hook token is stored only as
-- its sha256; an HMAC secret for hook signatures is sealed.
-- owner agents: agents, agent_runs, agent_run_steps, agent_messages

CREATE TABLE agents (
  id                        TEXT PRIMARY KEY,
  account_id                TEXT NOT NULL REFERENCES accounts (id),
  name                      TEXT NOT NULL,
  model                     TEXT NOT NULL,
  instructions_sealed       TEXT NOT NULL,
  -- JSON array of tool names (svc's tools and send_message).
  tools                     TEXT NOT NULL,
  -- JSON array of mcp_servers ids whose allowlisted tools the agent may call.
  mcp_servers               TEXT NOT NULL,
  -- The agent's own key, and the key it was delegated from (the caller's key_id, or a root key made for the agent).
  key_id                    TEXT NOT NULL,
  parent_key_id             TEXT NOT NULL,
  -- 1 when parent_key_id was made for this agent (deleting the agent revokes it too).
  owns_parent_key           INTEGER NOT NULL CHECK (owns_parent_key IN (0, 1)),
  max_steps                 INTEGER NOT NULL CHECK (max_steps >= 1),
  budget_micro_usd_per_run  INTEGER CHECK (budget_micro_usd_per_run IS NULL OR budget_micro_usd_per_run >= 0),
  monthly_cap_micro_usd     INTEGER CHECK (monthly_cap_micro_usd IS NULL OR monthly_cap_micro_usd >= 0),
  enabled                   INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  hook_token_sha256         TEXT UNIQUE,
  hook_secret_sealed        TEXT,
  mailbox_trigger           INTEGER NOT NULL DEFAULT 0 CHECK (mailbox_trigger IN (0, 1)),
  -- NULL: no limit of its own.
  max_runs_per_hour         INTEGER CHECK (max_runs_per_hour IS NULL OR max_runs_per_hour >= 1),
  created_at                INTEGER NOT NULL,
  updated_at                INTEGER NOT NULL,
  -- Deleted agents keep their rows so their runs stay readable.
  deleted_at                INTEGER
);
CREATE INDEX agents_account ON agents (account_id, created_at);

CREATE TABLE agent_runs (
  id               TEXT PRIMARY KEY,
  agent_id         TEXT NOT NULL REFERENCES agents (id),
  account_id       TEXT NOT NULL REFERENCES accounts (id),
  trigger          TEXT NOT NULL CHECK (trigger IN ('manual', 'hook', 'mailbox')),
  message_id       TEXT,
  status           TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  input_sealed     TEXT NOT NULL,
  output_sealed    TEXT,
  error_type       TEXT,
  error_message    TEXT,
  turns            INTEGER NOT NULL DEFAULT 0,
  cost_micro_usd   INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL,
  started_at       INTEGER,
  finished_at      INTEGER
);
CREATE INDEX agent_runs_agent ON agent_runs (agent_id, created_at);
CREATE INDEX agent_runs_mailbox ON agent_runs (agent_id, trigger, created_at);

-- One row per model call or tool call of a run: names, outcome, cost and receipt; never content.
CREATE TABLE agent_run_steps (
  run_id          TEXT NOT NULL REFERENCES agent_runs (id),
  seq             INTEGER NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('model', 'tool')),
  name            TEXT NOT NULL,
  status          TEXT NOT NULL,
  cost_micro_usd  INTEGER NOT NULL DEFAULT 0,
  receipt_id      TEXT,
  duration_ms     INTEGER NOT NULL,
  created_at      INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE agent_messages (
  id              TEXT PRIMARY KEY,
  account_id      TEXT NOT NULL REFERENCES accounts (id),
  agent_id        TEXT NOT NULL REFERENCES agents (id),
  from_agent_id   TEXT,
  subject_sealed  TEXT,
  body_sealed     TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  read_at         INTEGER,
  -- The mailbox trigger: 'waiting' for a run (max_runs_per_hour), 'dispatched' once its run is queued; NULL when no trigger took it.
  dispatch        TEXT CHECK (dispatch IS NULL OR dispatch IN ('waiting', 'dispatched')),
  run_id          TEXT
);
CREATE INDEX agent_messages_mailbox ON agent_messages (agent_id, created_at);
CREATE INDEX agent_messages_waiting ON agent_messages (agent_id, dispatch, created_at);
