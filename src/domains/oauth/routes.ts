/**
 * The OAuth routes (spec §4.1 OAuth lines, §4.4 approve; docs/oauth.md):
 *
 *   GET  /.well-known/oauth-authorization-server                 RFC 8414 (public)
 *   GET  /.well-known/oauth-protected-resource[/v1/mcp[/servers/:id]]   RFC 9728 (public)
 *   POST /v1/oauth/register      RFC 7591, public clients              (public)
 *   GET  /v1/oauth/client        client name, redirect URI registered? (public)
 *   GET  /v1/oauth/authorize     302 to the consent page (or the client's redirect with an error)
 *   GET  /v1/oauth/consent       the consent page (HTML)               (public; reads svc_session)
 *   GET  /v1/oauth/consent/siwe-message  the page's sign-in message     (public)
 *   POST /v1/oauth/authorize/approve  consent (session; CSRF token)
 *   POST /v1/oauth/token         authorization_code, refresh_token; form or JSON (public)
 *   POST /v1/oauth/revoke        RFC 7009, always 200                  (public)
 *
 * Token, registration and revocation errors are RFC 6749/7591 bodies (errors.ts).
 */
import { Elysia } from "elysia";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import { answerAuthorization, startAuthorization } from "./authorize.ts";
import { clientInfo, registerClient } from "./registration.ts";
import { consentPage, SESSION_COOKIE, siweMessage } from "./consent.ts";
import { oauthEndpoint } from "./errors.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "./metadata.ts";
import * as M from "./models.ts";
import { mcpResource } from "./resources.ts";
import { revokeToken, tokenRequest } from "./tokens.ts";

const tags = ["oauth"];

const redirectResponses = (what: string) => ({
  302: { description: `Found: Location is ${what}`, headers: { location: { schema: { type: "string" } } } },
}) as never;
const htmlResponse = { 200: { description: "the consent page", content: { "text/html": { schema: { type: "string" } } } } } as never;

const noStore = { "cache-control": "no-store", pragma: "no-cache" };

export function oauthRoutes(ctx: Context) {
  const wellKnown = new Elysia({ prefix: "/.well-known" })
    .use(guards.public(ctx))
    .get("/oauth-authorization-server", () => authorizationServerMetadata(ctx), {
      response: { 200: M.AuthorizationServerMetadata },
      detail: { summary: "OAuth 2.1 authorization server metadata (RFC 8414): PKCE S256 only, public clients, Client ID Metadata Documents", tags },
    })
    .get("/oauth-protected-resource", () => protectedResourceMetadata(ctx, mcpResource(ctx)), {
      response: { 200: M.ProtectedResourceMetadata },
      detail: { summary: "Protected resource metadata (RFC 9728) of svc's MCP server", tags },
    })
    .get("/oauth-protected-resource/v1/mcp", () => protectedResourceMetadata(ctx, mcpResource(ctx)), {
      response: { 200: M.ProtectedResourceMetadata },
      detail: { summary: "Protected resource metadata (RFC 9728) of POST /v1/mcp, as its 401 names it", tags },
    })
    .get("/oauth-protected-resource/v1/mcp/servers/:id", ({ params }) => protectedResourceMetadata(ctx, `${ctx.config.public_url}/v1/mcp/servers/${params.id}`), {
      params: M.GatewayPrmParams,
      response: { 200: M.ProtectedResourceMetadata },
      detail: { summary: "Protected resource metadata (RFC 9728) of a gateway server's endpoint POST /v1/mcp/servers/:id", tags },
    });

  const endpoints = new Elysia({ prefix: "/v1/oauth" })
    .use(guards.public(ctx))
    .post(
      "/register",
      ({ body, set }) =>
        oauthEndpoint(() => {
          const registered = registerClient(ctx, body);
          set.status = 201;
          Object.assign(set.headers, noStore);
          return registered;
        }),
      {
        body: M.RegisterBody,
        response: { 201: M.RegisteredClient, ...errors(400) },
        detail: { summary: "Register a public OAuth client (RFC 7591): https or loopback redirect URIs; no secret, PKCE instead", tags },
      },
    )
    .get("/client", ({ query }) => oauthEndpoint(() => clientInfo(ctx, query.client_id, query.redirect_uri)), {
      query: M.ClientQuery,
      response: { 200: M.ClientView, ...errors(401) },
      detail: { summary: "A client's name and whether a redirect URI is one it registered (401 invalid_client for an unknown one)", tags },
    })
    .get(
      "/authorize",
      async ({ query, redirect }) => redirect(await startAuthorization(ctx, query as Record<string, string | undefined>), 302),
      {
        query: M.AuthorizeQuery,
        detail: {
          summary: "Start an authorization (PKCE S256 required, RFC 8707 resource honoured): 302 to the consent page, or to the client's redirect URI with an error",
          tags,
          responses: redirectResponses("the consent page, or the client's redirect URI with error, state and iss"),
        },
      },
    )
    .get(
      "/consent",
      ({ query, cookie }) => {
        const value = cookie[SESSION_COOKIE]?.value;
        const page = consentPage(ctx, query.request, typeof value === "string" ? value : undefined, Boolean(ctx.config.passkeys.rp_id && ctx.config.passkeys.origin));
        return new Response(page.html, { headers: page.headers });
      },
      {
        query: M.ConsentQuery,
        detail: { summary: "The consent page (HTML): client, redirect host, scope; sign in (SIWE or passkey), then approve or deny", tags, responses: htmlResponse },
      },
    )
    .get("/consent/siwe-message", ({ query }) => siweMessage(ctx, { address: query.address, chain_id: Number(query.chain_id), nonce: query.nonce }), {
      query: M.SiweQuery,
      response: { 200: M.SiweMessageView },
      detail: { summary: "The EIP-4361 message the consent page's wallet signs (svc's domain, the checksummed address, a nonce from POST /v1/auth/nonce)", tags },
    })
    .post(
      "/token",
      ({ body, set }) =>
        oauthEndpoint(async () => {
          const tokens = await tokenRequest(ctx, (body ?? {}) as Record<string, unknown>);
          Object.assign(set.headers, noStore);
          return tokens;
        }),
      {
        body: M.TokenBody,
        response: { 200: M.TokenResponse, ...errors(400, 401) },
        detail: { summary: "Tokens: authorization_code (single use, PKCE verified) or refresh_token (rotating); form-encoded or JSON; RFC 6749 errors", tags },
      },
    )
    .post(
      "/revoke",
      ({ body }) =>
        oauthEndpoint(() => {
          revokeToken(ctx, (body ?? {}) as Record<string, unknown>);
          return {};
        }),
      {
        body: M.RevokeBody,
        response: { 200: M.Revoked, ...errors(400) },
        detail: { summary: "Revoke an access or refresh token and its whole grant, API key included (RFC 7009: 200 whether or not the token was known)", tags },
      },
    );

  const approve = new Elysia({ prefix: "/v1/oauth" })
    .use(guards.session(ctx))
    .post("/authorize/approve", ({ principal, body, headers }) => answerAuthorization(ctx, principal, body, headers.origin), {
      body: M.ApproveBody,
      response: { 200: M.Approved, ...errors(403, 404) },
      detail: { summary: "Approve or deny an authorization request (CSRF token from the consent page); returns where to send the browser", tags, security: [{ session: [] }] },
    });

  return [wellKnown, endpoints, approve];
}
