-- 0018: MCP servers an account registers for the gateway (spec §4.3 POST /v1/mcp/servers/:id,
-- §4.4 /v1/mcp-servers; docs/mcp.md). The URL and the credential are sealed with the master key
-- (AAD bound to the row and the field), so neither is readable from a copy of the database.
-- owner mcp: mcp_servers

CREATE TABLE mcp_servers (
  id                       TEXT PRIMARY KEY,
  account_id               TEXT NOT NULL REFERENCES accounts (id),
  name                     TEXT NOT NULL,
  url_sealed               TEXT NOT NULL,
  credential_sealed        TEXT,
  -- JSON array of tool names the gateway lets through; NULL: every tool the server lists.
  allowed_tools            TEXT,
  -- NULL: the deployment's mcp.default_price_micro_usd_per_call.
  price_micro_usd_per_call INTEGER CHECK (price_micro_usd_per_call IS NULL OR price_micro_usd_per_call >= 0),
  enabled                  INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at               INTEGER NOT NULL,
  updated_at               INTEGER NOT NULL
);
CREATE INDEX mcp_servers_account ON mcp_servers (account_id, created_at);
