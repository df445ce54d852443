/** The MCP area's svc.toml section (mcp.*; docs/mcp.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";
import { MicroUsd } from "../../core/schemas.ts";

export const McpSection = T.Object(
  {
    /** What one gateway tools/call costs when the server sets no price of its own (GET /v1/mcp-servers shows it). */
    default_price_micro_usd_per_call: MicroUsd(),
    /** What one call of svc's own tools costs where the service behind it meters nothing itself (credit_balance, state_*). */
    tool_price_micro_usd_per_call: MicroUsd(),
    /** A model id of the catalogue for the chat tool of POST /v1/mcp; empty: no chat tool. */
    chat_model: T.String({ maxLength: 128 }),
    /** The longest a gateway call may wait for the upstream MCP server (seconds). */
    upstream_timeout_secs: T.Integer({ minimum: 1, maximum: 600 }),
    /** Browser origins (scheme://host[:port]) allowed to call /v1/mcp besides public_url's own; a request whose Origin is not listed is refused (DNS rebinding). */
    allowed_origins: T.Array(T.String({ pattern: "^https?://[^/\\s]+$" }), { maxItems: 64 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    mcp: Static<typeof McpSection>;
  }
}

export const mcpConfig: ConfigPart = {
  sections: {
    mcp: {
      schema: McpSection,
      default: { default_price_micro_usd_per_call: 0, tool_price_micro_usd_per_call: 0, chat_model: "", upstream_timeout_secs: 30, allowed_origins: [] },
    },
  },
  env: [{ name: "SVC_MCP_CHAT_MODEL", path: "mcp.chat_model", type: "string" }],
};
