/**
 * The authorization step (OAuth 2.1 §4.1 with PKCE; RFC 8707 resource; RFC 9207 iss):
 *
 *   GET /v1/oauth/authorize   checks the client and its redirect URI (refused in place: never
 *                             redirect to an unverified URI), then everything else (response_type
 *                             code, a PKCE S256 challenge — plain is refused —, scope, resource),
 *                             errors going back to the client's redirect URI; records the request
 *                             and sends the browser to svc's consent page
 *   POST …/authorize/approve  a signed-in person (session) approves or denies, choosing the scopes
 *                             and the monthly cap the grant's key carries; CSRF-checked (a token
 *                             bound to the request and the session, and Origin when sent); answers
 *                             where to send the browser: the redirect URI with code, state, iss
 */
import { InvalidRequestError, InvalidScopeError, InvalidTargetError, OAuthError, UnsupportedResponseTypeError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { csrfToken, requireCsrfToken } from "../../core/csrf.ts";
import { ApiError, forbidden, invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { MicroUsd } from "../../core/money.ts";
import { newSecret, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { SCOPES } from "../keys/index.ts";
import { chooseRedirect, findClient, type OAuthClient } from "./registration.ts";
import { issuer, knownResource, mcpResource } from "./resources.ts";

export const CODE_PREFIX = "oac-svc";

/** Scopes a grant may carry ("*" is never granted through OAuth); "mcp" is always among them. */
export const GRANTABLE = Object.keys(SCOPES).filter((s) => s !== "keys:delegate");
/** What the consent page ticks when the client asked for no scope: MCP and what svc's tools use. */
export const DEFAULT_SCOPES = ["mcp", "billing:read", "inference", "sandboxes", "state", "memory"];

export interface AuthorizationRow {
  id: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  requested_scope: string | null;
  resource: string;
  status: "pending" | "approved" | "denied" | "exchanged";
  account_id: string | null;
  scopes: string | null;
  monthly_cap_micro_usd: number | null;
  code_sha256: string | null;
  grant_id: string | null;
  created_at: number;
  expires_at: number;
}

type Query = Record<string, string | undefined>;

/** The client's redirect URI with the authorization response's parameters (RFC 9207: iss always). */
function redirectWith(ctx: Context, redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set("iss", issuer(ctx));
  return url.href;
}

function parseScope(raw: string | undefined): string[] | null {
  if (raw === undefined || raw.trim() === "") return null;
  const scopes = [...new Set(raw.split(/\s+/).filter(Boolean))];
  const unknown = scopes.filter((s) => !GRANTABLE.includes(s));
  if (unknown.length) throw new InvalidScopeError(`unknown scope ${unknown.join(", ")} (scopes_supported lists them)`);
  return scopes;
}

/**
 * GET /v1/oauth/authorize. Returns where to send the browser: the consent page, or the client's
 * redirect URI with an error. A request with no usable client or redirect URI throws (400 here).
 */
export async function startAuthorization(ctx: Context, query: Query): Promise<string> {
  const clientId = query.client_id;
  if (!clientId) throw invalidField("query.client_id", "is required");
  let client: OAuthClient;
  let redirectUri: string;
  try {
    client = await findClient(ctx, clientId);
    redirectUri = chooseRedirect(client, query.redirect_uri);
  } catch (err) {
    // Never redirect to a URI the client did not register: answered here.
    if (err instanceof OAuthError) throw new ApiError(400, err.errorCode, err.message);
    throw err;
  }
  const state = query.state ?? null;
  try {
    if (query.response_type !== "code") throw new UnsupportedResponseTypeError("response_type must be code");
    if (!query.code_challenge) throw new InvalidRequestError("PKCE is required: send code_challenge and code_challenge_method=S256");
    if (query.code_challenge_method !== "S256") throw new InvalidRequestError("code_challenge_method must be S256 (plain is not accepted)");
    if (!/^[A-Za-z0-9_-]{43}$/.test(query.code_challenge)) throw new InvalidRequestError("code_challenge must be a base64url SHA-256 digest (43 characters)");
    const requested = parseScope(query.scope);
    const resource = query.resource === undefined ? mcpResource(ctx) : knownResource(ctx, query.resource);
    if (!resource) throw new InvalidTargetError(`resource ${query.resource} is not served here (${mcpResource(ctx)} is)`);
    const id = newId("oar");
    const now = ctx.clock.now();
    ctx.db
      .query(
        `INSERT INTO oauth_authorizations (id, client_id, redirect_uri, state, code_challenge, requested_scope, resource, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, client.id, redirectUri, state, query.code_challenge, requested ? requested.join(" ") : null, resource, now, now + ctx.config.oauth.authorization_ttl_secs * 1000);
    return `${ctx.config.public_url}/v1/oauth/consent?request=${id}`;
  } catch (err) {
    if (err instanceof OAuthError) return redirectWith(ctx, redirectUri, { error: err.errorCode, error_description: err.message, state });
    throw err;
  }
}

export function authorizationRow(ctx: Context, id: string): AuthorizationRow | null {
  return ctx.db.query<AuthorizationRow, [string]>("SELECT * FROM oauth_authorizations WHERE id = ?").get(id);
}

/** A request still waiting for a person's answer (the consent page, approve). */
export function pendingAuthorization(ctx: Context, id: string): AuthorizationRow {
  const row = authorizationRow(ctx, id);
  if (!row || row.status !== "pending" || row.expires_at <= ctx.clock.now()) throw notFound("authorization request (it expired or was answered; start again from the client)");
  return row;
}

// ---------------------------------------------------------------------------------------------
// CSRF: the approve form carries a token bound to the request and the signed-in session.

const csrfKey = (ctx: Context) => ctx.sealer.deriveKey("oauth-consent-csrf");

export const consentCsrfToken = (ctx: Context, requestId: string, sessionId: string): string => csrfToken(csrfKey(ctx), `${requestId}\n${sessionId}`);

function checkCsrf(ctx: Context, requestId: string, sessionId: string, presented: string, origin: string | undefined): void {
  if (origin !== undefined && origin !== new URL(ctx.config.public_url).origin) throw forbidden("csrf_refused", "the request came from another origin");
  requireCsrfToken(consentCsrfToken(ctx, requestId, sessionId), presented, "the consent form's token does not match this session; reload the consent page");
}

export interface ApproveInput {
  request_id: string;
  approve: boolean;
  csrf_token: string;
  scopes?: string[];
  monthly_cap_micro_usd?: MicroUsd | null;
}

/** POST /v1/oauth/authorize/approve: the person's answer; where to send the browser. */
export function answerAuthorization(ctx: Context, session: { accountId: string; sessionId: string }, input: ApproveInput, origin: string | undefined): { redirect_to: string; approved: boolean } {
  const row = pendingAuthorization(ctx, input.request_id);
  checkCsrf(ctx, row.id, session.sessionId, input.csrf_token, origin);
  if (!input.approve) {
    const changed = ctx.db.query("UPDATE oauth_authorizations SET status = 'denied', account_id = ? WHERE id = ? AND status = 'pending'").run(session.accountId, row.id).changes;
    if (!changed) throw notFound("authorization request");
    return { approved: false, redirect_to: redirectWith(ctx, row.redirect_uri, { error: "access_denied", error_description: "the user denied the request", state: row.state }) };
  }
  const chosen = input.scopes ?? (row.requested_scope ? row.requested_scope.split(" ") : DEFAULT_SCOPES);
  const unknown = chosen.filter((s) => !GRANTABLE.includes(s));
  if (unknown.length) throw invalidField("scopes", `not grantable: ${unknown.join(", ")} (grantable: ${GRANTABLE.join(", ")})`);
  const scopes = [...new Set(["mcp", ...chosen])].sort();
  const code = newSecret(CODE_PREFIX);
  const changed = ctx.db
    .query(
      `UPDATE oauth_authorizations SET status = 'approved', account_id = ?, scopes = ?, monthly_cap_micro_usd = ?, code_sha256 = ?, expires_at = ?
       WHERE id = ? AND status = 'pending'`,
    )
    .run(session.accountId, JSON.stringify(scopes), input.monthly_cap_micro_usd ?? null, sha256Hex(code), ctx.clock.now() + ctx.config.oauth.authorization_ttl_secs * 1000, row.id).changes;
  if (!changed) throw notFound("authorization request");
  return { approved: true, redirect_to: redirectWith(ctx, row.redirect_uri, { code, state: row.state }) };
}
