-- 0016: fleet nodes (spec §4.1 GET /v1/nodes and POST /v1/nodes/heartbeat, §4.4
-- POST /v1/nodes/:id/:gate, §4.5 admin enroll/approve, §5 Node class; docs/nodes.md).
-- A node is enrolled by the operator (its nk-svc_ key shown once, kept here only as sha256),
-- approved before anything is dispatched to it, and heartbeats every nodes.heartbeat_secs with
-- what it can run and where it listens. The gateway reaches it with the dispatch secret the node
-- sent in its last heartbeat, sealed here (AAD binds it to the node id).
-- owner nodes: nodes

CREATE TABLE nodes (
  id                     TEXT PRIMARY KEY,                  -- node_…
  name                   TEXT NOT NULL,
  -- The account that may gate the node (POST /v1/nodes/:id/:gate); NULL: the operator only.
  account_id             TEXT REFERENCES accounts (id),
  kinds                  TEXT NOT NULL,                     -- JSON array the operator enrolled it for, e.g. ["sandbox"]
  key_sha256             TEXT NOT NULL UNIQUE,
  key_prefix             TEXT NOT NULL,                     -- "nk-svc_Ab3dEf", safe to list
  approved               INTEGER NOT NULL DEFAULT 0 CHECK (approved IN (0, 1)),
  approved_at            INTEGER,
  disabled               INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
  draining               INTEGER NOT NULL DEFAULT 0 CHECK (draining IN (0, 1)),
  -- From the latest heartbeat (NULL before the first one).
  endpoint               TEXT,
  dispatch_secret_sealed TEXT,
  dispatch_secret_sha256 TEXT,
  version                TEXT,
  offered_kinds          TEXT,                              -- JSON array the node says it serves (NULL: all it was enrolled for)
  languages              TEXT NOT NULL DEFAULT '[]',        -- JSON array of language names it can run now
  models                 TEXT NOT NULL DEFAULT '[]',        -- JSON array
  capacity               INTEGER NOT NULL DEFAULT 0 CHECK (capacity >= 0),
  sandbox_available      INTEGER NOT NULL DEFAULT 0 CHECK (sandbox_available IN (0, 1)),
  sandbox_reason         TEXT,
  posture                TEXT,                              -- JSON: the node runner's posture
  speed_factor           REAL,
  clamp_count            INTEGER NOT NULL DEFAULT 0,
  -- Gateway→node calls: answered (any 2xx/4xx) or failed (unreachable, 5xx, nonsense); latency
  -- is a moving average of each call's time less the node's own execution time.
  calls_ok               INTEGER NOT NULL DEFAULT 0,
  calls_failed           INTEGER NOT NULL DEFAULT 0,
  latency_ms             INTEGER,
  last_heartbeat_at      INTEGER,
  -- Set by the sweep when heartbeats stop (the node was reported lost); cleared by the next heartbeat.
  unreachable_at         INTEGER,
  created_at             INTEGER NOT NULL,
  updated_at             INTEGER NOT NULL
);
CREATE INDEX nodes_account ON nodes (account_id);
