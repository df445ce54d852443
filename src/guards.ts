/**
 * The authentication class of each route group, wired to where its credentials live.
 * A routes file starts with `.use(guards.<class>(ctx))`; see core/auth.ts for the mechanics.
 */
import type { Context } from "./context.ts";
import { credentialGuard, operatorTokenGuard, publicGuard } from "./core/auth.ts";
import { resolveSession, SESSION_COOKIE, SESSION_PREFIX } from "./domains/auth/index.ts";
import { acceptPayment, paymentHeader, paymentResponseHeaders } from "./domains/billing/index.ts";
import { API_KEY_PREFIX, hasScope, missingScope, resolveApiKey, type Scope } from "./domains/keys/index.ts";
import { NODE_KEY_PREFIX, resolveNodeKey } from "./domains/nodes/index.ts";

export const guards = {
  /** No credential; per-client rate limit. */
  public: (ctx: Context) => publicGuard(ctx.publicLimiter, ctx.config.trust_proxy),

  /** Bearer admin token. Mount the group only when config.admin.token_sha256 is set. */
  admin: (ctx: Context) => operatorTokenGuard("admin", ctx.config.admin.token_sha256!),

  /** Bearer metrics token. Mount only when config.metrics.token_sha256 is set. */
  metrics: (ctx: Context) => operatorTokenGuard("metrics", ctx.config.metrics.token_sha256!),

  /** Bearer sess_… or the svc_session cookie. */
  session: (ctx: Context) =>
    credentialGuard({
      kind: "session",
      prefix: `${SESSION_PREFIX}_`,
      name: "a session token (sess_…)",
      cookie: SESSION_COOKIE,
      resolve: (sha) => resolveSession(ctx, sha),
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
    }).derive({ as: "scoped" }, async ({ principal, headers, set }) => {
      const header = paymentHeader(headers);
      if (header !== null) Object.assign(set.headers, paymentResponseHeaders(await acceptPayment(ctx, principal.accountId, header)));
      return {};
    }),
};
