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
  return new Elysia().derive({ as: "scoped" }, ({ request, server }) => {
    const client = clientAddress(request, server?.requestIP(request)?.address, trustProxy);
    const take = limiter.take(client);
    if (!take.ok) throw rateLimited(take.retryAfterSecs);
    return { principal: { kind: "public", client } as const };
  });
}

/**
 * Admin and metrics classes: one operator-configured bearer token, compared by sha256 in
 * constant time. Mount only when the token is configured.
 */
export function operatorTokenGuard<K extends "admin" | "metrics">(kind: K, tokenSha256: string) {
  const label = kind === "admin" ? "admin token" : "metrics token";
  return new Elysia().derive({ as: "scoped" }, ({ headers }) => {
    const token = bearerToken(headers);
    if (token === null) throw unauthorized("missing_credentials", `this route needs Authorization: Bearer <${label}>`);
    if (!digestsEqual(sha256Hex(token), tokenSha256)) throw unauthorized(`invalid_${kind}_token`, `the ${label} is not valid`);
    return { principal: { kind } as { kind: K } };
  });
}

export interface CredentialClass<P> {
  /** Secret prefix this class accepts, e.g. "sk-svc_". */
  prefix: string;
  /** Human name for errors, e.g. "an API key (sk-svc_…)". */
  name: string;
  /** Cookie that may carry the secret instead of the header (sessions). */
  cookie?: string;
  /** Looks the secret's sha256 up; throws ApiError (401 unknown/revoked/expired, 403 suspended). */
  resolve(tokenSha256: string): P;
}

/** API-key, session and node classes: a prefixed secret stored only as sha256. */
export function credentialGuard<P extends Principal>(cls: CredentialClass<P>) {
  return new Elysia().derive({ as: "scoped" }, ({ headers, cookie }) => {
    let token = bearerToken(headers);
    if (token === null && cls.cookie) {
      const value = cookie[cls.cookie]?.value;
      if (typeof value === "string" && value) token = value;
    }
    if (token === null) throw unauthorized("missing_credentials", `this route needs Authorization: Bearer <${cls.name}>`);
    if (!token.startsWith(cls.prefix)) throw unauthorized("wrong_credential_class", `this route takes ${cls.name}; the request carried ${describe(token)}`);
    return { principal: cls.resolve(sha256Hex(token)) };
  });
}

export const accountSuspended = (): ApiError =>
  new ApiError(403, "account_suspended", "this account is suspended by the operator; its keys and sessions are refused");
