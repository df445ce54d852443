/**
 * OAuth endpoints answer errors as RFC 6749 §5.2 says ({"error": "<code>", "error_description"}),
 * which OAuth clients parse (an MCP client refreshes or signs in again on invalid_grant): the
 * SDK's OAuth error classes carry the codes. core/schemas.ts ErrorBody documents this shape beside
 * svc's own.
 */
import { InvalidClientError, OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";

export function oauthErrorResponse(err: OAuthError): Response {
  const status = err instanceof InvalidClientError ? 401 : 400;
  return new Response(JSON.stringify(err.toResponseObject()), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache" },
  });
}

/** Runs an OAuth endpoint: its OAuth errors become RFC 6749 responses; anything else goes to the app's error handler. */
export async function oauthEndpoint<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // Typed as T for the route's schema: an error Response is not checked against the 200 schema.
    if (err instanceof OAuthError) return oauthErrorResponse(err) as unknown as T;
    throw err;
  }
}
