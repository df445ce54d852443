/**
 * Operator sign-in for the console: the admin token, typed once, is exchanged for an HttpOnly
 * cookie that stands for it until the browser closes (no Expires) or it goes unused for
 * console.operator_idle_secs. So the token itself never sits in page memory, localStorage or a
 * URL after the first request, and a stolen cookie dies with its idle window.
 *
 * The sign-ins are kept in this process's memory, hashed: a restart signs every operator out,
 * which is the safe direction, and nothing about the admin token is written anywhere.
 * Writes carried by the cookie need X-CSRF-Token (an HMAC of the sign-in's id), as session
 * cookies do (auth/csrf.ts).
 */
import { csrfToken, isSafeMethod, requireCsrfToken } from "../../core/csrf.ts";
import { unauthorized } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { digestsEqual, newSecret, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";

export const OPERATOR_COOKIE = "svc_console_operator";
const PREFIX = "cop";

interface OperatorSignIn {
  id: string;
  lastUsedAt: number;
}

declare module "../../context.ts" {
  interface Context {
    /** Console operator sign-ins by sha256 of their cookie value. */
    consoleOperators?: Map<string, OperatorSignIn>;
  }
}

// Made on first use: a context whose console is switched off still answers the admin guard's question.
const operators = (ctx: Context): Map<string, OperatorSignIn> => (ctx.consoleOperators ??= new Map());

const csrfOf = (ctx: Context, id: string): string => csrfToken(ctx.sealer.deriveKey("console-operator-csrf"), id);

/** Exchanges the admin token for a cookie value; 401 when the token is wrong or none is configured. */
export function operatorSignIn(ctx: Context, adminToken: string): { cookie: string; csrf_token: string } {
  const expected = ctx.config.admin.token_sha256;
  if (!expected || !digestsEqual(sha256Hex(adminToken), expected)) throw unauthorized("invalid_admin_token", "the admin token is not valid");
  pruneIdle(ctx);
  const cookie = newSecret(PREFIX);
  const id = newId("cop");
  operators(ctx).set(sha256Hex(cookie), { id, lastUsedAt: ctx.clock.now() });
  return { cookie, csrf_token: csrfOf(ctx, id) };
}

export function operatorSignOut(ctx: Context, cookie: string | undefined): void {
  if (cookie) operators(ctx).delete(sha256Hex(cookie));
}

/** The live sign-in a cookie value stands for (its use slides the idle window), or null. */
export function operatorOf(ctx: Context, cookie: string | undefined): { id: string; csrf_token: string } | null {
  if (!cookie || !cookie.startsWith(`${PREFIX}_`)) return null;
  const key = sha256Hex(cookie);
  const found = operators(ctx).get(key);
  if (!found) return null;
  const now = ctx.clock.now();
  if (now - found.lastUsedAt >= ctx.config.console.operator_idle_secs * 1000) {
    operators(ctx).delete(key);
    return null;
  }
  found.lastUsedAt = now;
  return { id: found.id, csrf_token: csrfOf(ctx, found.id) };
}

/**
 * For the admin guard: whether this request's operator cookie stands for the admin token.
 * Throws 403 csrf_refused for a write without the sign-in's token.
 */
export function operatorCookieAdmits(ctx: Context, cookie: string | undefined, method: string, csrf: string | undefined): boolean {
  const op = operatorOf(ctx, cookie);
  if (!op) return false;
  if (!isSafeMethod(method)) requireCsrfToken(op.csrf_token, csrf, "an admin write from the console needs its X-CSRF-Token header");
  return true;
}

function pruneIdle(ctx: Context): void {
  const cutoff = ctx.clock.now() - ctx.config.console.operator_idle_secs * 1000;
  for (const [k, v] of operators(ctx)) if (v.lastUsedAt <= cutoff) operators(ctx).delete(k);
}
