-- 0029: sealed calls (spec §2.6 "Call (sealed)", §3 committed → revealed, §4.3 and §4.1
-- GET /v1/calls/public/:id; docs/calls.md). A call is a commitment, sha256(salt || text), made
-- now and revealed later. The commit's signed receipt states the commitment; commits are
-- gathered under Merkle roots recorded and anchored by the anchors area (anchor_root is such
-- a root, anchor_index the call's leaf in it).
-- owner calls: sealed_calls

CREATE TABLE sealed_calls (
  -- Creation order for the lists (newest first), stable within one millisecond.
  seq          INTEGER PRIMARY KEY,
  id           TEXT NOT NULL UNIQUE,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  -- The API key that committed: GET /v1/calls/mine lists this key's calls.
  key_id       TEXT NOT NULL REFERENCES api_keys (id),
  -- text: svc made the salt and holds text and salt sealed; commitment: the caller keeps them until reveal.
  mode         TEXT NOT NULL CHECK (mode IN ('text', 'commitment')),
  commitment   TEXT NOT NULL CHECK (length(commitment) = 64),
  state        TEXT NOT NULL CHECK (state IN ('committed', 'revealed')),
  -- Sealed at rest (core/seal.ts). Mode text: set at commit; mode commitment: set at reveal.
  text_sealed  TEXT,
  salt_sealed  TEXT,
  -- The commit's receipt as signed (metadata only: it states the commitment, never the text).
  receipt_id   TEXT NOT NULL,
  receipt      TEXT NOT NULL,
  signature    TEXT NOT NULL,
  signer       TEXT NOT NULL,
  -- NULL until the anchoring pass puts the commit under a root.
  anchor_root  TEXT,
  anchor_index INTEGER,
  created_at   INTEGER NOT NULL,
  revealed_at  INTEGER,
  CHECK (mode = 'commitment' OR (text_sealed IS NOT NULL AND salt_sealed IS NOT NULL)),
  CHECK (state = 'committed' OR (text_sealed IS NOT NULL AND salt_sealed IS NOT NULL AND revealed_at IS NOT NULL)),
  CHECK ((anchor_root IS NULL) = (anchor_index IS NULL))
);
-- GET /v1/calls (one account's) and GET /v1/calls/mine (one key's), newest first.
CREATE INDEX sealed_calls_account ON sealed_calls (account_id, seq DESC);
CREATE INDEX sealed_calls_key ON sealed_calls (key_id, seq DESC);
-- The anchoring pass: commits not yet under a root, oldest first; and a root's leaves in order.
CREATE INDEX sealed_calls_unanchored ON sealed_calls (seq) WHERE anchor_root IS NULL;
CREATE INDEX sealed_calls_root ON sealed_calls (anchor_root, anchor_index) WHERE anchor_root IS NOT NULL;
