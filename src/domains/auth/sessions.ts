/**
 * Sessions: the credential of the account-management routes (Bearer sess_… or the svc_session
 * cookie). The token is returned once at sign-in and stored as sha256.
 *
 * Expiry slides: each use moves expires_at to now + auth.session_idle_secs (written at most
 * once a minute), never past max_expires_at = created + auth.session_max_secs.
 */
import { accountSuspended, type Principal } from "../../core/auth.ts";
import { isoTime } from "../../core/clock.ts";
import { notFound, unauthorized } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { newSecret, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { isSuspended } from "../accounts/index.ts";

export const SESSION_PREFIX = "sess";
export const SESSION_COOKIE = "svc_session";
export type SessionMethod = "siwe" | "passkey" | "operator";
export type SessionPrincipal = Extract<Principal, { kind: "session" }>;

/** Writing last use on every request would serialise reads behind the write lock; a minute is precise enough. */
const TOUCH_EVERY_MS = 60_000;

interface Row {
  id: string;
  account_id: string;
  method: SessionMethod;
  wallet_address: string | null;
  created_at: number;
  expires_at: number;
  max_expires_at: number | null;
  last_seen_at: number | null;
  revoked_at: number | null;
  user_agent: string | null;
  ip: string | null;
}

export interface SessionView {
  id: string;
  method: SessionMethod;
  wallet_address: string | null;
  created_at: string;
  last_seen_at: string | null;
  expires_at: string;
  user_agent: string | null;
  ip: string | null;
  current: boolean;
}

const view = (r: Row, currentId: string | null): SessionView => ({
  id: r.id,
  method: r.method,
  wallet_address: r.wallet_address,
  created_at: isoTime(r.created_at),
  last_seen_at: r.last_seen_at === null ? null : isoTime(r.last_seen_at),
  expires_at: isoTime(r.expires_at),
  user_agent: r.user_agent,
  ip: r.ip,
  current: r.id === currentId,
});

export interface IssueInput {
  accountId: string;
  method: SessionMethod;
  walletAddress?: string | null;
  userAgent?: string | null;
  ip?: string | null;
}

export interface IssuedSession {
  token: string;
  id: string;
  account_id: string;
  wallet_address: string | null;
  expires_at: number;
}

export function issueSession(ctx: Context, input: IssueInput): IssuedSession {
  const token = newSecret(SESSION_PREFIX);
  const id = newId("ses");
  const now = ctx.clock.now();
  const max = now + ctx.config.auth.session_max_secs * 1000;
  const expires = Math.min(now + ctx.config.auth.session_idle_secs * 1000, max);
  ctx.db
    .query(
      `INSERT INTO sessions (id, account_id, token_sha256, created_at, expires_at, max_expires_at, last_seen_at, method, wallet_address, user_agent, ip)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, input.accountId, sha256Hex(token), now, expires, max, now, input.method, input.walletAddress ?? null, (input.userAgent ?? "").slice(0, 300) || null, input.ip ?? null);
  return { token, id, account_id: input.accountId, wallet_address: input.walletAddress ?? null, expires_at: expires };
}

/** What sign-in answers (SIWE and passkey alike): the token, once, and what it is for. */
export function sessionResponse(issued: IssuedSession, accountCreated: boolean) {
  return {
    token: issued.token,
    token_type: "session" as const,
    session_id: issued.id,
    account_id: issued.account_id,
    wallet_address: issued.wallet_address,
    expires_at: isoTime(issued.expires_at),
    account_created: accountCreated,
  };
}

/** The svc_session cookie: HttpOnly, SameSite=Lax, Secure when the public URL is https. */
export function sessionCookie(ctx: Context, issued: Pick<IssuedSession, "token" | "expires_at">) {
  return {
    value: issued.token,
    httpOnly: true,
    secure: ctx.config.public_url.startsWith("https://"),
    sameSite: "lax" as const,
    path: "/",
    expires: new Date(issued.expires_at),
  };
}

/** An expired, empty svc_session cookie: tells the browser to forget it (sent on every logout). */
export function clearedSessionCookie(ctx: Context) {
  return { ...sessionCookie(ctx, { token: "", expires_at: 0 }), maxAge: 0 };
}

export function resolveSession(ctx: Context, tokenSha256: string): SessionPrincipal {
  const row = ctx.db
    .query<Pick<Row, "id" | "account_id" | "expires_at" | "max_expires_at" | "last_seen_at" | "revoked_at">, [string]>(
      "SELECT id, account_id, expires_at, max_expires_at, last_seen_at, revoked_at FROM sessions WHERE token_sha256 = ?",
    )
    .get(tokenSha256);
  if (!row || row.revoked_at !== null) throw unauthorized("invalid_session", "the session token is not valid; sign in again");
  const now = ctx.clock.now();
  if (row.expires_at <= now) throw unauthorized("session_expired", "the session has expired; sign in again");
  if (isSuspended(ctx, row.account_id)) throw accountSuspended();
  if (row.last_seen_at === null || now - row.last_seen_at >= TOUCH_EVERY_MS) {
    const max = row.max_expires_at ?? row.expires_at;
    ctx.db
      .query("UPDATE sessions SET last_seen_at = ?, expires_at = max(expires_at, min(?, ?)) WHERE id = ?")
      .run(now, now + ctx.config.auth.session_idle_secs * 1000, max, row.id);
  }
  return { kind: "session", accountId: row.account_id, sessionId: row.id };
}

/** Live sessions of the account, newest first; the caller's own is marked current. */
/** True while the session may be used: not signed out, not expired. */
export function sessionInForce(ctx: Context, sessionId: string): boolean {
  const row = ctx.db.query<{ revoked_at: number | null; expires_at: number }, [string]>("SELECT revoked_at, expires_at FROM sessions WHERE id = ?").get(sessionId);
  return !!row && row.revoked_at === null && row.expires_at > ctx.clock.now();
}

export function listSessions(ctx: Context, accountId: string, currentId: string | null): SessionView[] {
  return ctx.db
    .query<Row, [string, number]>("SELECT * FROM sessions WHERE account_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC, id")
    .all(accountId, ctx.clock.now())
    .map((r) => view(r, currentId));
}

export function getSession(ctx: Context, accountId: string, sessionId: string): SessionView {
  const row = ctx.db.query<Row, [string, string]>("SELECT * FROM sessions WHERE id = ? AND account_id = ?").get(sessionId, accountId);
  if (!row) throw notFound("session");
  return view(row, sessionId);
}

export function revokeSession(ctx: Context, accountId: string, sessionId: string): void {
  const r = ctx.db.query("UPDATE sessions SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL").run(ctx.clock.now(), sessionId, accountId);
  if (r.changes === 0) throw notFound("session");
}

/** Signs the account out everywhere. Returns how many sessions ended. */
export function revokeAllSessions(ctx: Context, accountId: string): number {
  return ctx.db.query("UPDATE sessions SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL").run(ctx.clock.now(), accountId).changes;
}
