/**
 * The authentication class of each route group, wired to where its credentials live.
 * A routes file starts with `.use(guards.<class>(ctx))`; see core/auth.ts for the mechanics.
 */
import type { Context } from "./context.ts";
import { Elysia } from "elysia";
import { AUTH_CLASS, bearerToken, credentialGuard, operatorTokenGuard, publicGuard } from "./core/auth.ts";
import { ApiError, unauthorized } from "./core/errors.ts";
import { sha256Hex } from "./core/secrets.ts";
import { checkSessionCsrf, CSRF_HEADER, resolveSession, SESSION_COOKIE, SESSION_PREFIX } from "./domains/auth/index.ts";
import { OPERATOR_COOKIE, operatorCookieAdmits } from "./domains/console/index.ts";
import { acceptPayment, paymentHeader, paymentResponseHeaders } from "./domains/billing/index.ts";
import { API_KEY_PREFIX, type ApiKeyPrincipal, hasScope, missingScope, resolveApiKey, type Scope } from "./domains/keys/index.ts";
import { NODE_KEY_PREFIX, resolveNodeKey } from "./domains/nodes/index.ts";
import { ACCESS_PREFIX, resolveAccessToken, resourceMetadataUrl, resourceOfPath } from "./domains/oauth/index.ts";

/** The x402 proof an API-key route may carry, verified and credited before the handler (see guards.apiKey). */
const acceptPaymentProof = (ctx: Context) =>
  async ({ principal, headers, set }: { principal: ApiKeyPrincipal; headers: Record<string, string | undefined>; set: { headers: object } }) => {
    const header = paymentHeader(headers);
    if (header !== null) Object.assign(set.headers, paymentResponseHeaders(await acceptPayment(ctx, principal.accountId, header)));
    return {};
  };

/**
 * A 401 or 403 of an OAuth-protected resource, with the challenge an MCP client follows (RFC 6750
 * §3, RFC 9728 §5.1): where the resource's metadata is, and why the credential was refused.
 */
function challenged(err: unknown, metadataUrl: string, scope: Scope, hadToken: boolean): unknown {
  if (!(err instanceof ApiError) || (err.status !== 401 && !(err.status === 403 && err.type === "missing_scope"))) return err;
  const reason = err.status === 403 ? `, error="insufficient_scope", scope="${scope}"` : hadToken ? `, error="invalid_token", error_description="${err.message.replace(/["\\]/g, "")}"` : "";
  return new ApiError(err.status, err.type, err.message, err.extra, { ...err.headers, "www-authenticate": `Bearer resource_metadata="${metadataUrl}"${reason}` });
}

export const guards = {
  /** No credential; per-client rate limit. */
  public: (ctx: Context) => publicGuard(ctx.publicLimiter, ctx.config.trust_proxy),

  /**
   * Bearer admin token, or the console's operator cookie standing for it (console/operator.ts;
   * writes by cookie carry X-CSRF-Token). Mount the group only when config.admin.token_sha256 is set.
   */
  admin: (ctx: Context) =>
    operatorTokenGuard("admin", ctx.config.admin.token_sha256!, {
      name: OPERATOR_COOKIE,
      admits: (value, request, headers) => operatorCookieAdmits(ctx, value, request.method, headers[CSRF_HEADER]),
    }),

  /** Bearer metrics token. Mount only when config.metrics.token_sha256 is set. */
  metrics: (ctx: Context) => operatorTokenGuard("metrics", ctx.config.metrics.token_sha256!),

  /** Bearer sess_… or the svc_session cookie (writes by cookie carry X-CSRF-Token: auth/csrf.ts). */
  session: (ctx: Context) =>
    credentialGuard({
      kind: "session",
      prefix: `${SESSION_PREFIX}_`,
      name: "a session token (sess_…)",
      cookie: SESSION_COOKIE,
      resolve: (sha) => resolveSession(ctx, sha),
      cookieUsed: (principal, request, headers) => checkSessionCsrf(ctx, principal.sessionId, request.method, headers[CSRF_HEADER]),
    }),

  /** Bearer nk-svc_…: a fleet node (POST /v1/nodes/heartbeat). */
  node: (ctx: Context) =>
    credentialGuard({
      kind: "node",
      prefix: `${NODE_KEY_PREFIX}_`,
      name: "a node key (nk-svc_…)",
      resolve: (sha) => resolveNodeKey(ctx, sha),
    }),

  /**
   * Bearer sk-svc_…, holding `scope` when one is named (403 missing_scope otherwise).
   *
   * Also where x402 payment proofs come in (X-PAYMENT / PAYMENT-SIGNATURE): every API-key route
   * is mounted behind this guard, and right here the key's account is known and the handler
   * has not run yet, so a proof is verified and credited before any reservation. (A global
   * hook in app.ts would run before the key is resolved, and would have to resolve it again.)
   */
  apiKey: (ctx: Context, scope?: Scope) =>
    credentialGuard({
      kind: "api_key",
      prefix: `${API_KEY_PREFIX}_`,
      name: "an API key (sk-svc_…)",
      resolve: (sha) => {
        const principal = resolveApiKey(ctx, sha);
        if (scope && !hasScope(principal.scopes, scope)) throw missingScope(scope);
        return principal;
      },
    }).derive({ as: "scoped" }, acceptPaymentProof(ctx)),

  /**
   * The OAuth-protected MCP endpoints (POST /v1/mcp, POST /v1/mcp/servers/:id): an API key
   * (sk-svc_…) or an OAuth access token (oat-svc_…) whose audience is the requested resource,
   * holding `scope`. A token stands for its grant's API key (oauth/tokens.ts), so the handler
   * sees the same principal either way and every key control applies. A 401 carries
   * WWW-Authenticate: Bearer resource_metadata="…" (MCP authorization discovery).
   */
  apiKeyOrOAuth: (ctx: Context, scope: Scope) => {
    const resolve = ({ headers, request }: { headers: Record<string, string | undefined>; request: Request }): { principal: ApiKeyPrincipal } => {
      const path = new URL(request.url).pathname;
      const resource = resourceOfPath(ctx, path) ?? `${ctx.config.public_url}${path}`;
      const metadataUrl = resourceMetadataUrl(ctx, resource);
      let token: string | null = null;
      try {
        token = bearerToken(headers);
        if (token === null) throw unauthorized("missing_credentials", "this route needs Authorization: Bearer <an API key (sk-svc_…) or an OAuth access token>");
        let principal: ApiKeyPrincipal;
        if (token.startsWith(`${API_KEY_PREFIX}_`)) principal = resolveApiKey(ctx, sha256Hex(token));
        else if (token.startsWith(`${ACCESS_PREFIX}_`)) principal = resolveAccessToken(ctx, sha256Hex(token), resource);
        else throw unauthorized("wrong_credential_class", "this route takes an API key (sk-svc_…) or an OAuth access token (oat-svc_…)");
        if (!hasScope(principal.scopes, scope)) throw missingScope(scope);
        return { principal };
      } catch (err) {
        throw challenged(err, metadataUrl, scope, token !== null);
      }
    };
    // Tagged as the API-key class: the OpenAPI document and docs/routes.md name it so.
    (resolve as unknown as Record<symbol, string>)[AUTH_CLASS] = "api_key";
    return new Elysia().derive({ as: "scoped" }, resolve).derive({ as: "scoped" }, acceptPaymentProof(ctx));
  },
};
