/**
 * The MCP routes (spec §4.3, §4.4; docs/mcp.md):
 *
 *   POST   /v1/mcp                  svc's own MCP server (API key or OAuth token; scope mcp)
 *   POST   /v1/mcp/servers/:id      the gateway to a registered server (API key or OAuth token; scope mcp)
 *   POST   /v1/mcp-servers          register an upstream (session)
 *   GET    /v1/mcp-servers          {servers, default_price_micro_usd_per_call} (session)
 *   PATCH  /v1/mcp-servers/:id      change it (session)
 *   DELETE /v1/mcp-servers/:id      forget it (session)
 *   POST   /v1/mcp-servers/:id/test connect and list its tool names (session)
 *
 * The MCP endpoints speak Streamable HTTP (JSON mode, stateless: transport.ts); GET and DELETE on
 * them answer 405. A browser Origin other than public_url's own or mcp.allowed_origins is
 * refused (DNS rebinding).
 */
import { Elysia } from "elysia";
import { forbidden } from "../../core/errors.ts";
import { namedList } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { serveGateway } from "./gateway.ts";
import * as M from "./models.ts";
import { serveSvcMcp } from "./remote.ts";
import { testServer } from "./server-test.ts";
import { createServer, defaultPrice, deleteServer, listServers, updateServer } from "./servers.ts";
import { dropClient } from "./upstream.ts";

const tags = ["mcp"];
const session = [{ session: [] }];
const apiKey = [{ apiKey: [] }];

/** Streamable HTTP answers: a JSON-RPC response, 202 for notifications only, and the transport's own refusals (a JSON-RPC error that is also svc's error body). */
const mcpResponses = {
  200: { description: "the JSON-RPC response (MCP over Streamable HTTP, JSON mode); a tool's receipt is in result._meta[\"svc/receipt\"]", content: { "application/json": { schema: M.JsonRpcMessage } } },
  202: { description: "accepted: the body held only notifications or responses (no body)" },
  // Declared here rather than in a response map, which would hide these entries from the generator (and has no way to say "no body").
  ...Object.fromEntries([402, 406, 415, 502, 503].map((status) => [status, { description: "refused" }])),
} as never;

function checkOrigin(ctx: Context, origin: string | undefined): void {
  if (origin === undefined) return;
  if (origin === new URL(ctx.config.public_url).origin || ctx.config.mcp.allowed_origins.includes(origin)) return;
  throw forbidden("origin_not_allowed", `requests from the browser origin ${origin} are refused (mcp.allowed_origins lists those allowed)`);
}

export function mcpRoutes(ctx: Context) {
  const mcp = new Elysia({ prefix: "/v1/mcp" })
    .use(guards.apiKeyOrOAuth(ctx, "mcp"))
    .post(
      "",
      ({ principal, body, request, headers }) => {
        checkOrigin(ctx, headers.origin);
        return serveSvcMcp(ctx, principal, request, body);
      },
      {
        body: M.JsonRpcBody,
        detail: { summary: "svc's remote MCP server (Streamable HTTP, JSON-RPC): credit, chat, sandboxes, state and memory as tools, each receipted", tags, security: apiKey, responses: mcpResponses },
      },
    )
    .post(
      "/servers/:id",
      ({ principal, params, body, request, headers }) => {
        checkOrigin(ctx, headers.origin);
        return serveGateway(ctx, principal, params.id, request, body);
      },
      {
        params: M.ServerParams,
        body: M.JsonRpcBody,
        detail: {
          summary: "The MCP gateway to a registered server: tools/list filtered to its allowlist, tools/call allowlist-checked before the upstream is dialed, metered (mcp_call) and receipted with an action attestation",
          tags,
          security: apiKey,
          responses: mcpResponses,
        },
      },
    );

  const registry = new Elysia({ prefix: "/v1/mcp-servers" })
    .use(guards.session(ctx))
    .post(
      "",
      async ({ principal, body, set }) => {
        const created = await createServer(ctx, principal.accountId, body);
        set.status = 201;
        return created;
      },
      {
        body: M.CreateServerBody,
        response: { 201: M.Server },
        detail: { summary: "Register an MCP server for the gateway (URL and credential sealed; the URL passes the outbound guard)", tags, security: session },
      },
    )
    .get("", ({ principal }) => namedList("servers", listServers(ctx, principal.accountId), { default_price_micro_usd_per_call: defaultPrice(ctx) }), {
      response: { 200: M.ServerList },
      detail: { summary: "The account's MCP servers and the default per-call price; never a credential", tags, security: session },
    })
    .patch(
      "/:id",
      async ({ principal, params, body }) => {
        const updated = await updateServer(ctx, principal.accountId, params.id, body);
        dropClient(ctx, params.id);
        return updated;
      },
      {
        params: M.ServerParams,
        body: M.UpdateServerBody,
        response: { 200: M.Server },
        detail: { summary: "Change a server: name, url, credential (null removes it), tool allowlist, per-call price, enabled", tags, security: session },
      },
    )
    .delete(
      "/:id",
      ({ principal, params }) => {
        const deleted = deleteServer(ctx, principal.accountId, params.id);
        dropClient(ctx, params.id);
        return deleted;
      },
      { params: M.ServerParams, response: { 200: M.Deleted }, detail: { summary: "Forget a server (its receipts stay)", tags, security: session } },
    )
    .post("/:id/test", ({ principal, params, request }) => testServer(ctx, principal.accountId, params.id, request.signal), {
      params: M.ServerParams,
      response: { 200: M.TestResult, ...errors(502) },
      detail: { summary: "Connect to the server and list its tools' names (names only); 502 when it fails or lists none", tags, security: session },
    });

  return [mcp, registry];
}
