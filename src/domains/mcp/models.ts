/**
 * TypeBox models of the MCP routes: /v1/mcp-servers (closed request bodies; the exact shapes
 * served, never a credential), POST /v1/mcp-servers/:id/test, and the JSON-RPC envelopes of
 * POST /v1/mcp and POST /v1/mcp/servers/:id (the MCP SDK's transport writes those; their
 * schema here is the JSON-RPC 2.0 frame, open inside, as MCP defines the rest).
 */
import { t } from "elysia";
import { MicroUsd, Nullable } from "../../core/schemas.ts";
import { MAX_URL_LENGTH } from "../webhooks/index.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

export const ServerParams = t.Object({ id: t.String({ description: "mcps_… id" }) });

const Name = t.String({ minLength: 1, maxLength: 100, description: "a label for people and for the MCP serverInfo the gateway announces" });
const Url = t.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  pattern: "^[Hh][Tt][Tt][Pp][Ss]?://",
  error: "must be an http:// or https:// URL",
  description: "the upstream's Streamable HTTP endpoint; must reach the public internet unless the operator allows private targets (webhooks.allow_private); sealed at rest",
});
const Credential = t.String({
  minLength: 1,
  maxLength: 4096,
  description: "sent to the upstream as Authorization: Bearer <credential>; sealed at rest, never shown again",
});
const ToolName = t.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9_.\\-/]+$", error: "must be an MCP tool name (letters, digits, _ - . /)" });
const AllowedTools = t.Array(ToolName, {
  maxItems: 256,
  uniqueItems: true,
  description: "tool names the gateway lets through (tools/list is filtered to them, any other tools/call is refused before the upstream is dialed); null: every tool the server lists",
});
const Price = MicroUsd({ description: "what one tools/call costs; null: the deployment's default_price_micro_usd_per_call" });

export const CreateServerBody = t.Object(
  {
    name: Name,
    url: Url,
    credential: t.Optional(Nullable(Credential)),
    allowed_tools: t.Optional(Nullable(AllowedTools)),
    price_micro_usd_per_call: t.Optional(Nullable(Price)),
    enabled: t.Optional(t.Boolean({ description: "default true; a disabled server answers 404 at POST /v1/mcp/servers/:id" })),
  },
  closed,
);

export const UpdateServerBody = t.Object(
  {
    name: t.Optional(Name),
    url: t.Optional(Url),
    credential: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 4096, description: "a new credential; null removes it" }))),
    allowed_tools: t.Optional(Nullable(AllowedTools)),
    price_micro_usd_per_call: t.Optional(Nullable(Price)),
    enabled: t.Optional(t.Boolean()),
  },
  closed,
);

export const Server = t.Object(
  {
    id: t.String(),
    name: t.String(),
    url: t.String({ description: "the upstream's URL (its owner sees it; sealed at rest)" }),
    has_credential: t.Boolean({ description: "whether a credential is stored (it is never shown)" }),
    allowed_tools: Nullable(t.Array(t.String())),
    price_micro_usd_per_call: Nullable(MicroUsd({ description: "the server's own price; null: the default" })),
    effective_price_micro_usd_per_call: MicroUsd({ description: "what one tools/call costs now" }),
    enabled: t.Boolean(),
    endpoint: t.String({ description: "where an MCP client reaches it through svc: POST with an API key" }),
    created_at: Time,
    updated_at: Time,
  },
  closed,
);

export const ServerList = t.Object(
  {
    servers: t.Array(Server, { description: "the account's MCP servers, newest first" }),
    default_price_micro_usd_per_call: MicroUsd({ description: "the price of a call to a server that sets none" }),
  },
  closed,
);

export const Deleted = t.Object({ id: t.String(), deleted: t.Literal(true) }, closed);

export const TestResult = t.Object(
  {
    id: t.String(),
    ok: t.Literal(true),
    server: t.Object({ name: t.String(), version: t.String() }, { description: "the upstream's serverInfo", additionalProperties: false }),
    tools: t.Array(t.String(), { description: "the names of the tools the upstream lists (names only)" }),
    allowed: t.Array(t.String(), { description: "those the allowlist lets through" }),
    latency_ms: t.Integer({ minimum: 0 }),
  },
  closed,
);

/**
 * A JSON-RPC 2.0 message (MCP's framing, written by the SDK transport). svc adds `type` to the
 * error object of a transport-level refusal (406, 415, 400…), so the same body is both a
 * JSON-RPC error and svc's one error shape.
 */
export const JsonRpcMessage = t.Object(
  {
    jsonrpc: t.Literal("2.0"),
    id: t.Optional(t.Union([t.String(), t.Number(), t.Null()])),
    result: t.Optional(t.Object({}, { additionalProperties: true })),
    error: t.Optional(t.Object({ code: t.Integer(), message: t.String() }, { additionalProperties: true })),
  },
  { additionalProperties: true, description: "a JSON-RPC 2.0 response (MCP Streamable HTTP, JSON mode)" },
);

/** The request: a JSON-RPC 2.0 message; the SDK transport checks it (a malformed one is a JSON-RPC 400). */
export const JsonRpcBody = t.Unknown({ description: "a JSON-RPC 2.0 request or notification (MCP over Streamable HTTP)" });
