/**
 * Tokens (OAuth 2.1 §4.1.3, §4.3; RFC 7009; RFC 8707):
 *
 * - authorization_code: the code is single-use (consumed atomically; presenting a used code
 *   again revokes what it was exchanged for), bound to its client, redirect URI and resource,
 *   and the PKCE verifier must match its S256 challenge (checked with pkce-challenge).
 * - The exchange mints the grant's API key (keys area, kind "delegated", named for the client,
 *   with the scopes and monthly cap the person approved) — so the account's key controls are the
 *   grant's controls: revoking the key (DELETE /v1/keys/:id), its breaker freezing it, the
 *   account's suspension all stop the tokens, and GET /v1/keys shows it.
 * - Access tokens are opaque secrets stored as sha256, with an expiry and an audience (the
 *   resource); refresh tokens rotate on every use, and presenting a used one revokes the grant.
 * - Revocation (RFC 7009) of either token revokes the whole grant and its key; it always answers 200.
 */
import { InvalidGrantError, InvalidRequestError, InvalidScopeError, InvalidTargetError, UnsupportedGrantTypeError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { verifyChallenge } from "pkce-challenge";
import { ApiError, unauthorized } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { newSecret, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { type ApiKeyPrincipal, getKeyRow, mintKey, resolveApiKey, revokeKey } from "../keys/index.ts";
import type { AuthorizationRow } from "./authorize.ts";
import { knownClient } from "./registration.ts";
import { knownResource } from "./resources.ts";

export const ACCESS_PREFIX = "oat-svc";
export const REFRESH_PREFIX = "ort-svc";

interface GrantRow {
  id: string;
  account_id: string;
  client_id: string;
  key_id: string;
  key_sha256: string;
  resource: string;
  scopes: string;
  created_at: number;
  revoked_at: number | null;
}

interface TokenRow {
  token_sha256: string;
  grant_id: string;
  kind: "access" | "refresh";
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Params = Record<string, unknown>;

const str = (params: Params, name: string): string | undefined => {
  const v = params[name];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") throw new InvalidRequestError(`${name} must be a string`);
  return v;
};
const required = (params: Params, name: string): string => {
  const v = str(params, name);
  if (v === undefined) throw new InvalidRequestError(`${name} is required`);
  return v;
};

/** Writes a fresh access and refresh token for a grant (call inside a transaction). */
function issueTokens(ctx: Context, grant: GrantRow): TokenResponse {
  const now = ctx.clock.now();
  const access = newSecret(ACCESS_PREFIX);
  const refresh = newSecret(REFRESH_PREFIX);
  const insert = ctx.db.query("INSERT INTO oauth_tokens (token_sha256, grant_id, kind, expires_at, created_at) VALUES (?, ?, ?, ?, ?)");
  insert.run(sha256Hex(access), grant.id, "access", now + ctx.config.oauth.access_token_ttl_secs * 1000, now);
  insert.run(sha256Hex(refresh), grant.id, "refresh", now + ctx.config.oauth.refresh_token_ttl_secs * 1000, now);
  return { access_token: access, token_type: "Bearer", expires_in: ctx.config.oauth.access_token_ttl_secs, refresh_token: refresh, scope: (JSON.parse(grant.scopes) as string[]).join(" ") };
}

/** Revokes a grant and its API key (idempotent). */
export function revokeGrant(ctx: Context, grantId: string, reason: string): void {
  ctx.tx.run(() => {
    const grant = ctx.db.query<GrantRow, [string]>("SELECT * FROM oauth_grants WHERE id = ?").get(grantId);
    if (!grant) return;
    if (grant.revoked_at === null) ctx.db.query("UPDATE oauth_grants SET revoked_at = ? WHERE id = ?").run(ctx.clock.now(), grantId);
    revokeKey(ctx, grant.account_id, grant.key_id, reason);
  });
}

function clientName(ctx: Context, clientId: string): string {
  return knownClient(ctx, clientId)?.name ?? clientId;
}

async function exchangeCode(ctx: Context, params: Params): Promise<TokenResponse> {
  const code = required(params, "code");
  const verifier = required(params, "code_verifier");
  const clientId = required(params, "client_id");
  const redirectUri = str(params, "redirect_uri");
  const resource = str(params, "resource");
  const row = ctx.db.query<AuthorizationRow, [string]>("SELECT * FROM oauth_authorizations WHERE code_sha256 = ?").get(sha256Hex(code));
  if (!row) throw new InvalidGrantError("the authorization code is not valid");
  if (row.status === "exchanged") {
    // A code presented twice: one of the two is an attacker. Whatever it bought is revoked.
    if (row.grant_id) revokeGrant(ctx, row.grant_id, "oauth_code_reused");
    throw new InvalidGrantError("the authorization code was already used");
  }
  if (row.status !== "approved" || row.expires_at <= ctx.clock.now()) throw new InvalidGrantError("the authorization code has expired");
  if (row.client_id !== clientId) throw new InvalidGrantError("the authorization code was issued to another client");
  if (redirectUri === undefined || redirectUri !== row.redirect_uri) throw new InvalidGrantError("redirect_uri does not match the authorization request");
  if (resource !== undefined && knownResource(ctx, resource) !== row.resource) throw new InvalidTargetError("resource does not match the authorization request");
  if (!(await verifyChallenge(verifier, row.code_challenge))) throw new InvalidGrantError("code_verifier does not match the code_challenge");

  return ctx.tx.run(() => {
    const now = ctx.clock.now();
    // Single use, atomically: of two concurrent exchanges only one moves the row.
    const consumed = ctx.db.query("UPDATE oauth_authorizations SET status = 'exchanged' WHERE id = ? AND status = 'approved'").run(row.id).changes;
    if (!consumed) throw new InvalidGrantError("the authorization code was already used");
    const scopes = JSON.parse(row.scopes!) as string[];
    const minted = mintKey(ctx, {
      accountId: row.account_id!,
      kind: "delegated",
      name: `OAuth: ${clientName(ctx, row.client_id)}`.slice(0, 100),
      scopes,
      monthlyCap: row.monthly_cap_micro_usd,
    });
    const grant: GrantRow = {
      id: newId("ogr"),
      account_id: row.account_id!,
      client_id: row.client_id,
      key_id: minted.view.id,
      key_sha256: sha256Hex(minted.key),
      resource: row.resource,
      scopes: JSON.stringify(scopes),
      created_at: now,
      revoked_at: null,
    };
    ctx.db
      .query("INSERT INTO oauth_grants (id, account_id, client_id, key_id, key_sha256, resource, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(grant.id, grant.account_id, grant.client_id, grant.key_id, grant.key_sha256, grant.resource, grant.scopes, now);
    ctx.db.query("UPDATE oauth_authorizations SET grant_id = ? WHERE id = ?").run(grant.id, row.id);
    return issueTokens(ctx, grant);
  });
}

function refresh(ctx: Context, params: Params): TokenResponse {
  const token = required(params, "refresh_token");
  const clientId = required(params, "client_id");
  const resource = str(params, "resource");
  const scope = str(params, "scope");
  const row = ctx.db.query<TokenRow, [string]>("SELECT * FROM oauth_tokens WHERE token_sha256 = ? AND kind = 'refresh'").get(sha256Hex(token));
  if (!row) throw new InvalidGrantError("the refresh token is not valid");
  const grant = ctx.db.query<GrantRow, [string]>("SELECT * FROM oauth_grants WHERE id = ?").get(row.grant_id)!;
  if (row.used_at !== null) {
    // A rotated-out refresh token came back: it leaked. Revoke the grant (OAuth 2.1 §4.3.1).
    revokeGrant(ctx, grant.id, "oauth_refresh_reused");
    throw new InvalidGrantError("the refresh token was already used; the grant is revoked");
  }
  if (grant.revoked_at !== null) throw new InvalidGrantError("the grant was revoked");
  if (row.expires_at <= ctx.clock.now()) throw new InvalidGrantError("the refresh token has expired");
  if (grant.client_id !== clientId) throw new InvalidGrantError("the refresh token was issued to another client");
  if (resource !== undefined && knownResource(ctx, resource) !== grant.resource) throw new InvalidTargetError("resource does not match the grant");
  if (scope !== undefined) {
    const granted = JSON.parse(grant.scopes) as string[];
    if (!scope.split(/\s+/).filter(Boolean).every((s) => granted.includes(s))) throw new InvalidScopeError("scope asks for more than the grant holds");
  }
  // The grant's key must still be in force (revoked, expired or rotated away: the grant is over).
  try {
    resolveApiKey(ctx, grant.key_sha256);
  } catch (err) {
    if (err instanceof ApiError) throw new InvalidGrantError(`the grant's API key is no longer usable (${err.type})`);
    throw err;
  }
  return ctx.tx.run(() => {
    const rotated = ctx.db.query("UPDATE oauth_tokens SET used_at = ? WHERE token_sha256 = ? AND used_at IS NULL").run(ctx.clock.now(), row.token_sha256).changes;
    if (!rotated) throw new InvalidGrantError("the refresh token was already used");
    return issueTokens(ctx, grant);
  });
}

/** POST /v1/oauth/token. */
export async function tokenRequest(ctx: Context, params: Params): Promise<TokenResponse> {
  const grantType = required(params, "grant_type");
  if (grantType === "authorization_code") return exchangeCode(ctx, params);
  if (grantType === "refresh_token") return refresh(ctx, params);
  throw new UnsupportedGrantTypeError(`grant_type ${grantType} is not supported (authorization_code, refresh_token)`);
}

/** POST /v1/oauth/revoke (RFC 7009): revokes the token's grant and its key; unknown tokens are fine. */
export function revokeToken(ctx: Context, params: Params): void {
  const token = str(params, "token");
  if (!token) throw new InvalidRequestError("token is required");
  const row = ctx.db.query<TokenRow, [string]>("SELECT * FROM oauth_tokens WHERE token_sha256 = ?").get(sha256Hex(token));
  if (!row) return;
  const clientId = str(params, "client_id");
  const grant = ctx.db.query<GrantRow, [string]>("SELECT * FROM oauth_grants WHERE id = ?").get(row.grant_id);
  // A token presented by another client is not revoked (and the answer is the same 200).
  if (!grant || (clientId !== undefined && grant.client_id !== clientId)) return;
  revokeGrant(ctx, grant.id, "oauth_revoked");
}

const invalidToken = (message: string) => unauthorized("invalid_token", message);

/**
 * The API key an access token stands for, at `resource` (its audience must be that resource).
 * Throws 401 invalid_token (unknown, expired, revoked, wrong audience) or the key's own refusal
 * (revoked, expired, rotated away: 401; the account suspended: 403); a key frozen by its
 * circuit breaker refuses its tokens too (402 circuit_breaker_tripped) until it is unfrozen.
 */
export function resolveAccessToken(ctx: Context, tokenSha256: string, resource: string): ApiKeyPrincipal {
  const row = ctx.db
    .query<TokenRow & { resource: string; key_sha256: string; revoked_at: number | null }, [string]>(
      `SELECT t.*, g.resource, g.key_sha256, g.revoked_at FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_sha256 = ? AND t.kind = 'access'`,
    )
    .get(tokenSha256);
  if (!row || row.revoked_at !== null) throw invalidToken("the access token is not valid");
  if (row.expires_at <= ctx.clock.now()) throw invalidToken("the access token has expired; refresh it");
  if (row.resource !== resource) throw invalidToken(`the access token was issued for ${row.resource}, not for this resource`);
  const principal = resolveApiKey(ctx, row.key_sha256);
  const key = getKeyRow(ctx, principal.keyId);
  if (key?.frozen_at != null) {
    throw new ApiError(402, "circuit_breaker_tripped", `the API key behind this token (${principal.keyId}) is frozen by its circuit breaker; POST /v1/keys/${principal.keyId}/unfreeze lifts it`, { key_id: principal.keyId });
  }
  return principal;
}

/** Forgets what can no longer be used: answered or expired requests and expired tokens (a recurring job). */
export function pruneExpired(ctx: Context): number {
  const now = ctx.clock.now();
  // Exchanged requests are kept while a refresh token of theirs may live: a replayed code still finds (and revokes) its grant.
  const requests = ctx.db
    .query("DELETE FROM oauth_authorizations WHERE (status != 'exchanged' AND expires_at < ?) OR (status = 'exchanged' AND expires_at < ?)")
    .run(now - 86_400_000, now - ctx.config.oauth.refresh_token_ttl_secs * 1000).changes;
  const tokens = ctx.db.query("DELETE FROM oauth_tokens WHERE expires_at < ?").run(now - 86_400_000).changes;
  return requests + tokens;
}
