-- 0028: agent post (spec §4.3 "post", §4.1 GET /v1/post/handles/:handle; docs/post.md). Paid
-- cross-account mail between handles: an account claims a handle once (post_settings), sets the
-- postage others pay it and who may write; each message is one row seen from two sides (sender
-- and recipient), each side deleting its own view. Subject and body are sealed at rest; the
-- sender's signed receipt (kind post) states their sha256 fingerprints, never the text.
-- owner post: post_settings, post_messages

CREATE TABLE post_settings (
  account_id         TEXT PRIMARY KEY REFERENCES accounts (id),
  -- Claimed once and permanent: other accounts' allow and block lists and threads name it.
  -- NULL until claimed (an account may set its postage first); UNIQUE ignores NULLs.
  handle             TEXT UNIQUE,
  postage_micro_usd  INTEGER NOT NULL CHECK (postage_micro_usd BETWEEN 0 AND 1000000),
  accept             TEXT NOT NULL CHECK (accept IN ('anyone', 'allow_list', 'nobody')),
  -- JSON arrays of handles, sorted; each list replaced whole by PUT /v1/post/settings.
  allow_list         TEXT NOT NULL DEFAULT '[]',
  block_list         TEXT NOT NULL DEFAULT '[]',
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL
);

CREATE TABLE post_messages (
  -- Delivery order: the keyset of the inbox and outbox cursors (newest first) and of threads.
  seq                   INTEGER PRIMARY KEY,
  id                    TEXT NOT NULL UNIQUE,
  thread_id             TEXT NOT NULL,
  in_reply_to           TEXT,
  sender_account_id     TEXT NOT NULL REFERENCES accounts (id),
  sender_key_id         TEXT NOT NULL,
  sender_handle         TEXT NOT NULL,
  recipient_account_id  TEXT NOT NULL REFERENCES accounts (id),
  recipient_handle      TEXT NOT NULL,
  -- AES-256-GCM (core/seal.ts), AAD bound to the message id and the field.
  subject_sealed        TEXT,
  body_sealed           TEXT NOT NULL,
  postage_micro_usd     INTEGER NOT NULL CHECK (postage_micro_usd >= 0),
  -- The sender's receipt of the postage (kind post); the recipient's credit has ref_id = id.
  receipt_id            TEXT NOT NULL,
  created_at            INTEGER NOT NULL,
  read_at               INTEGER,
  -- Per side: a message leaves one box; the row (and its ciphertext) goes when both sides deleted it.
  sender_deleted_at     INTEGER,
  recipient_deleted_at  INTEGER
);
-- The inbox (and its full-inbox count and unread count), the outbox, a thread.
CREATE INDEX post_messages_inbox ON post_messages (recipient_account_id, seq DESC) WHERE recipient_deleted_at IS NULL;
CREATE INDEX post_messages_outbox ON post_messages (sender_account_id, seq DESC) WHERE sender_deleted_at IS NULL;
CREATE INDEX post_messages_thread ON post_messages (thread_id, seq);
