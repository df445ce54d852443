/**
 * An MCP client's side of OAuth, as the SDK does it: an in-memory OAuthClientProvider (what a
 * desktop client keeps on disk), and the person's side of the consent page driven over HTTP
 * (read the page with the session cookie, POST approve with its CSRF token).
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

export class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  /** The authorization URL the SDK sent the "browser" to. */
  authorizationUrl: URL | null = null;
  clientMetadataUrl?: string;

  constructor(
    readonly redirect: string,
    private readonly meta: Partial<OAuthClientMetadata> = {},
  ) {}

  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Test MCP Client", redirect_uris: [this.redirect], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", ...this.meta };
  }
  state() {
    return "state-123";
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The consent page's embedded data (request id, CSRF token once signed in). */
export function consentData(html: string): { request_id: string; csrf_token?: string } {
  const m = /<script type="application\/json" id="consent-data">(.*?)<\/script>/s.exec(html);
  if (!m) throw new Error(`no consent data in the page: ${html.slice(0, 300)}`);
  return JSON.parse(m[1]!);
}

/**
 * Follows an authorization URL as a browser would (one redirect, to the consent page), reads the
 * page signed in, and answers it. Returns approve's answer.
 */
export async function consent(
  authorizationUrl: URL | string,
  session: string,
  answer: { approve?: boolean; scopes?: string[]; monthly_cap_micro_usd?: number | null } = {},
): Promise<{ redirect_to: string; page: string; consentUrl: string }> {
  const first = await fetch(authorizationUrl, { redirect: "manual" });
  if (first.status !== 302) throw new Error(`authorize answered ${first.status}: ${await first.text()}`);
  const consentUrl = first.headers.get("location")!;
  const page = await (await fetch(consentUrl, { headers: { cookie: `svc_session=${session}` } })).text();
  const data = consentData(page);
  const origin = new URL(consentUrl).origin;
  const res = await fetch(`${origin}/v1/oauth/authorize/approve`, {
    method: "POST",
    headers: { authorization: `Bearer ${session}`, "content-type": "application/json", origin },
    body: JSON.stringify({ request_id: data.request_id, approve: answer.approve ?? true, csrf_token: data.csrf_token, scopes: answer.scopes, monthly_cap_micro_usd: answer.monthly_cap_micro_usd }),
  });
  const body = (await res.json()) as { redirect_to: string };
  if (res.status !== 200) throw new Error(`approve answered ${res.status}: ${JSON.stringify(body)}`);
  return { redirect_to: body.redirect_to, page, consentUrl };
}
