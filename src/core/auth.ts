/**
 * The authentication classes of spec §5, one guard each. A guard is a tiny Elysia plugin whose
 * hook runs before body validation (so an unauthenticated request gets 401, not a schema
 * error) and adds `principal` to the handler's context. Route groups pick their class with
 * `.use(guard)`; a group whose credential is not configured is simply not mounted.
 */
import { Elysia } from "elysia";
import { digestsEqual, sha256Hex } from "./secrets.ts";
import { ApiError, rateLimited, unauthorized } from "./errors.ts";
import { clientAddress, type RateLimiter } from "./ratelimit.ts";

export type Principal =
  | { kind: "public"; client: string }
  | { kind: "admin" }
  | { kind: "metrics" }
  | { kind: "session"; accountId: string; sessionId: string }
  | { kind: "api_key"; accountId: string; keyId: string; scopes: string[] }
  | { kind: "node"; nodeId: string };

/** The authentication classes of spec §5, as the OpenAPI document and docs/routes.md name them. */
export type AuthClass = "public" | "api_key" | "session" | "admin" | "metrics" | "node";

/**
 * Marks a guard's hook with its class, so the OpenAPI builder can read a route's class from the
 * hooks it was mounted with (its security requirement and the errors the class can answer)
 * instead of every route declaring it again.
 */
export const AUTH_CLASS = Symbol.for("svc.auth_class");

function tagged<F extends (...args: never[]) => unknown>(fn: F, cls: AuthClass): F {
  (fn as unknown as Record<symbol, AuthClass>)[AUTH_CLASS] = cls;
  return fn;
}

/** Known secret prefixes, to tell a caller which credential a route wanted when they sent another. */
const CREDENTIAL_NAMES: [string, string][] = [
  ["sk-svc_", "an API key"],
  ["sess_", "a session token"],
  ["nk-svc_", "a node key"],
];

const describe = (token: string): string => CREDENTIAL_NAMES.find(([p]) => token.startsWith(p))?.[1] ?? "an unrecognised token";

/** The token from "Authorization: Bearer <token>", or null when the header is absent. */
export function bearerToken(headers: Record<string, string | undefined>): string | null {
  const header = headers.authorization;
  if (header === undefined || header === "") return null;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized("invalid_authorization", "Authorization header must be \"Bearer <token>\"");
  return m[1]!;
}

/** Public class: no credential, a per-client rate limit. */
export function publicGuard(limiter: RateLimiter, trustProxy: boolean) {
  return new Elysia().derive(
    { as: "scoped" },
    tagged(({ request, server }: { request: Request; server: { requestIP(r: Request): { address: string } | null } | null }) => {
      const client = clientAddress(request, server?.requestIP(request)?.address, trustProxy);
      const take = limiter.take(client);
      if (!take.ok) throw rateLimited(take.retryAfterSecs);
      return { principal: { kind: "public", client } as const };
    }, "public"),
  );
}

/**
 * Admin and metrics classes: one operator-configured bearer token, compared by sha256 in
 * constant time. Mount only when the token is configured. `cookieAlt`: a cookie that may stand
 * for the token when no Authorization header is sent.
 */
export function operatorTokenGuard<K extends "admin" | "metrics">(kind: K, tokenSha256: string, cookieAlt?: OperatorCookie) {
  const label = kind === "admin" ? "admin token" : "metrics token";
  return new Elysia().derive(
    { as: "scoped" },
    tagged(({ headers, cookie, request }: { headers: Record<string, string | undefined>; cookie: Record<string, { value?: unknown } | undefined>; request: Request }) => {
      const token = bearerToken(headers);
      if (token === null) {
        const value = cookieAlt ? cookie[cookieAlt.name]?.value : undefined;
        if (typeof value === "string" && cookieAlt!.admits(value, request, headers)) return { principal: { kind } as { kind: K } };
        throw unauthorized("missing_credentials", `this route needs Authorization: Bearer <${label}>`);
      }
      if (!digestsEqual(sha256Hex(token), tokenSha256)) throw unauthorized(`invalid_${kind}_token`, `the ${label} is not valid`);
      return { principal: { kind } as { kind: K } };
    }, kind),
  );
}

/** A cookie that stands for the operator token (the console's operator sign-in). */
export interface OperatorCookie {
  name: string;
  /** True when the value is a live stand-in; may throw (a write without its CSRF token). */
  admits(value: string, request: Request, headers: Record<string, string | undefined>): boolean;
}

export interface CredentialClass<P> {
  /** Which class this is (spec §5). */
  kind: "api_key" | "session" | "node";
  /** Secret prefix this class accepts, e.g. "sk-svc_". */
  prefix: string;
  /** Human name for errors, e.g. "an API key (sk-svc_…)". */
  name: string;
  /** Cookie that may carry the secret instead of the header (sessions). */
  cookie?: string;
  /**
   * Called when the secret came from the cookie rather than the header: the browser sends a
   * cookie on requests other sites make it send, so the class checks what it must (CSRF).
   */
  cookieUsed?(principal: P, request: Request, headers: Record<string, string | undefined>): void;
  /** Looks the secret's sha256 up; throws ApiError (401 unknown/revoked/expired, 403 suspended). */
  resolve(tokenSha256: string): P;
}

/** API-key, session and node classes: a prefixed secret stored only as sha256. */
export function credentialGuard<P extends Principal>(cls: CredentialClass<P>) {
  return new Elysia().derive(
    { as: "scoped" },
    tagged(({ headers, cookie, request }: { headers: Record<string, string | undefined>; cookie: Record<string, { value?: unknown } | undefined>; request: Request }) => {
      let token = bearerToken(headers);
      let fromCookie = false;
      if (token === null && cls.cookie) {
        const value = cookie[cls.cookie]?.value;
        if (typeof value === "string" && value) [token, fromCookie] = [value, true];
      }
      if (token === null) throw unauthorized("missing_credentials", `this route needs Authorization: Bearer <${cls.name}>`);
      if (!token.startsWith(cls.prefix)) throw unauthorized("wrong_credential_class", `this route takes ${cls.name}; the request carried ${describe(token)}`);
      const principal = cls.resolve(sha256Hex(token));
      if (fromCookie) cls.cookieUsed?.(principal, request, headers);
      return { principal };
    }, cls.kind),
  );
}

export const accountSuspended = (): ApiError =>
  new ApiError(403, "account_suspended", "this account is suspended by the operator; its keys and sessions are refused");
