/**
 * Sessions: the credential of the account-management routes (Bearer sess_… or the svc_session
 * cookie). The token is returned once at sign-in and stored as sha256.
 */
import { accountSuspended, type Principal } from "../../core/auth.ts";
import { unauthorized } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { newSecret, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { isSuspended } from "../accounts/service.ts";

export const SESSION_PREFIX = "sess";
export const SESSION_COOKIE = "svc_session";

export type SessionPrincipal = Extract<Principal, { kind: "session" }>;

export function issueSession(ctx: Context, accountId: string, ttlMs: number): { id: string; token: string; expires_at: number } {
  const token = newSecret(SESSION_PREFIX);
  const id = newId("ses");
  const now = ctx.clock.now();
  ctx.db.query("INSERT INTO sessions (id, account_id, token_sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?)").run(id, accountId, sha256Hex(token), now, now + ttlMs);
  return { id, token, expires_at: now + ttlMs };
}

export function resolveSession(ctx: Context, tokenSha256: string): SessionPrincipal {
  const row = ctx.db
    .query<{ id: string; account_id: string; expires_at: number; revoked_at: number | null }, [string]>(
      "SELECT id, account_id, expires_at, revoked_at FROM sessions WHERE token_sha256 = ?",
    )
    .get(tokenSha256);
  if (!row || row.revoked_at !== null) throw unauthorized("invalid_session", "the session token is not valid; sign in again");
  if (row.expires_at <= ctx.clock.now()) throw unauthorized("session_expired", "the session has expired; sign in again");
  if (isSuspended(ctx, row.account_id)) throw accountSuspended();
  return { kind: "session", accountId: row.account_id, sessionId: row.id };
}
