/**
 * CSRF for cookie-borne sessions. A browser attaches svc_session to any request to this origin,
 * including one a hostile page makes it send; SameSite=Lax stops most of those, not all (a
 * same-site sibling, an old browser). So a state-changing request authenticated by the cookie
 * must also carry X-CSRF-Token: an HMAC of the session id under a key derived from the master
 * key. A page of another origin can neither read it (no CORS on svc's answers) nor set the
 * header on a cross-origin request without a preflight svc refuses.
 *
 * Bearer-authenticated requests need no token: a cross-site page cannot make the browser add
 * an Authorization header.
 */
import { CSRF_HEADER, csrfToken, isSafeMethod, requireCsrfToken } from "../../core/csrf.ts";
import type { Context } from "../../context.ts";

export { CSRF_HEADER };

export const sessionCsrfToken = (ctx: Context, sessionId: string): string => csrfToken(ctx.sealer.deriveKey("session-csrf"), sessionId);

/** Throws 403 csrf_refused when a cookie-authenticated write lacks the session's token. */
export function checkSessionCsrf(ctx: Context, sessionId: string, method: string, presented: string | undefined): void {
  if (isSafeMethod(method)) return;
  requireCsrfToken(
    sessionCsrfToken(ctx, sessionId),
    presented,
    `a write authenticated by the svc_session cookie needs the ${CSRF_HEADER} header of this session (the console sends it; API clients use Authorization: Bearer sess_… instead)`,
  );
}
