/**
 * OAuth 2.1 for MCP clients, driven by the official MCP SDK client's auth support against svc on
 * a real socket: discovery from the 401, dynamic registration, authorization with PKCE, consent
 * approved by a session, code exchange, tools through the token, refresh rotation, revocation —
 * and the refusals: code reuse, a wrong verifier, plain PKCE, a wrong redirect URI, a wrong
 * audience, a revoked or frozen key behind the token, a used refresh token.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auth, discoverAuthorizationServerMetadata, exchangeAuthorization, refreshAuthorization, registerClient, startAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { InvalidGrantError, InvalidTargetError, OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { bearer } from "../../support/harness.ts";
import { consent, consentData, MemoryProvider } from "../../support/mcp-oauth.ts";
import { serveSvc, type ServedSvc, tenant } from "../../support/mcp-svc.ts";
import { startUpstream } from "../../support/mcp-upstream.ts";
import { verifiedReceipt } from "../mcp/mcp-support.ts";

const REDIRECT = "http://127.0.0.1:33418/callback";
let svc: ServedSvc;
let t: ReturnType<typeof tenant>;

beforeAll(() => {
  svc = serveSvc();
  t = tenant(svc.h, { credit: 1_000_000 });
});
afterAll(() => svc.stop());

const mcpUrl = () => `${svc.base}/v1/mcp`;

const postMcp = (token: string, url = mcpUrl()) =>
  fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });

/** A registered client and one approved code, through the SDK's helpers. */
async function codeFor(opts: { resource?: string; approve?: Parameters<typeof consent>[2] } = {}) {
  const metadata = await discoverAuthorizationServerMetadata(svc.base);
  const info = await registerClient(svc.base, { metadata, clientMetadata: new MemoryProvider(REDIRECT).clientMetadata });
  const { authorizationUrl, codeVerifier } = await startAuthorization(svc.base, {
    metadata,
    clientInformation: info,
    redirectUrl: REDIRECT,
    state: "s1",
    resource: new URL(opts.resource ?? mcpUrl()),
    scope: "mcp billing:read",
  });
  const { redirect_to } = await consent(authorizationUrl, t.session, opts.approve);
  const code = new URL(redirect_to).searchParams.get("code")!;
  return { metadata: metadata!, info, code, codeVerifier, redirect_to };
}

describe("discovery documents", () => {
  test("RFC 8414 and RFC 9728, as the SDK's schemas read them", async () => {
    const as = (await (await fetch(`${svc.base}/.well-known/oauth-authorization-server`)).json()) as any;
    const parsed = OAuthMetadataSchema.parse(as);
    expect(parsed.issuer).toBe(svc.base);
    expect(parsed.code_challenge_methods_supported).toEqual(["S256"]);
    expect(parsed.response_types_supported).toEqual(["code"]);
    expect(parsed.grant_types_supported).toContain("refresh_token");
    expect(as.client_id_metadata_document_supported).toBe(true);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/v1/mcp"]) {
      const prm = OAuthProtectedResourceMetadataSchema.parse((await (await fetch(`${svc.base}${path}`)).json()) as any);
      expect(prm.resource).toBe(mcpUrl());
      expect(prm.authorization_servers).toEqual([svc.base]);
    }
  });
});

describe("the whole flow with the SDK client", () => {
  test("401 → discovery → registration → PKCE authorization → consent → code exchange → tools → refresh rotation → revoke", async () => {
    const provider = new MemoryProvider(REDIRECT);
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider });
    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    // No token yet: the 401's challenge starts the SDK's flow, which ends by sending the browser to svc.
    expect(await client.connect(transport).catch((e: unknown) => e)).toBeInstanceOf(UnauthorizedError);
    expect(provider.info?.client_id).toMatch(/^oc_/);
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${svc.base}/v1/oauth/authorize`);
    expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authUrl.searchParams.get("resource")).toBe(mcpUrl());

    // The person: the consent page (signed in by the session cookie) names the client and the redirect host.
    const { redirect_to, page } = await consent(authUrl, t.session);
    expect(page).toContain("Test MCP Client");
    expect(page).toContain("127.0.0.1:33418");
    const back = new URL(redirect_to);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe("state-123");
    expect(back.searchParams.get("iss")).toBe(svc.base); // RFC 9207

    await transport.finishAuth(back.searchParams.get("code")!);
    const tokens = provider.saved!;
    expect(tokens.access_token).toMatch(/^oat-svc_/);
    expect(tokens.refresh_token).toMatch(/^ort-svc_/);
    expect(tokens.token_type).toBe("Bearer");
    // Hashed at rest: the token itself is nowhere in the database.
    expect(svc.h.ctx.db.query("SELECT count(*) AS n FROM oauth_tokens WHERE token_sha256 = ?").get(tokens.access_token)).toEqual({ n: 0 });

    const connected = new Client({ name: "oauth-test", version: "1.0.0" });
    await connected.connect(new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider }));
    const { tools } = await connected.listTools();
    expect(tools.map((x) => x.name)).toContain("credit_balance");
    const result = await connected.callTool({ name: "credit_balance", arguments: {} });
    const receipt = await verifiedReceipt(result, svc.h.ctx.signer.address);
    // The token stands for the grant's API key, which the account sees among its keys.
    const keys = (await svc.h.json("GET", "/v1/keys", { headers: bearer(t.session) })).body as { id: string; name: string; kind: string; scopes: string[] }[];
    const grantKey = keys.find((k) => k.id === receipt.key_id)!;
    expect(grantKey).toMatchObject({ name: "OAuth: Test MCP Client", kind: "delegated" });
    expect(grantKey.scopes).toContain("mcp");
    await connected.close();

    // Refresh rotates: the new pair works, the old refresh token is refused.
    const metadata = (await discoverAuthorizationServerMetadata(svc.base))!;
    const rotated = await refreshAuthorization(svc.base, { metadata, clientInformation: provider.info!, refreshToken: tokens.refresh_token!, resource: new URL(mcpUrl()) });
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect((await postMcp(rotated.access_token)).status).toBe(200);

    // Revoke (RFC 7009): 200, and the token (and its grant's key) stop working.
    const revoked = await fetch(`${svc.base}/v1/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: rotated.refresh_token!, client_id: provider.info!.client_id }),
    });
    expect(revoked.status).toBe(200);
    const after = await postMcp(rotated.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(((await svc.h.json("GET", "/v1/keys?include_revoked=true", { headers: bearer(t.session) })).body as { id: string; status: string }[]).find((k) => k.id === grantKey.id)!.status).toBe("revoked");
    // Unknown tokens revoke fine too.
    expect((await fetch(`${svc.base}/v1/oauth/revoke`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: "nope" }) })).status).toBe(200);
  });

  test("the SDK's auth() alone completes with the code, and the token carries the scopes the person chose", async () => {
    const provider = new MemoryProvider(REDIRECT);
    expect(await auth(provider, { serverUrl: mcpUrl() })).toBe("REDIRECT");
    const { redirect_to } = await consent(provider.authorizationUrl!, t.session, { scopes: ["mcp", "state"], monthly_cap_micro_usd: 5_000_000 });
    expect(await auth(provider, { serverUrl: mcpUrl(), authorizationCode: new URL(redirect_to).searchParams.get("code")! })).toBe("AUTHORIZED");
    expect(provider.saved!.scope).toBe("mcp state");
    const keys = (await svc.h.json("GET", "/v1/keys", { headers: bearer(t.session) })).body as { scopes: string[]; monthly_cap_micro_usd: number | null; name: string }[];
    expect(keys.find((k) => k.scopes.join(" ") === "mcp state")!.monthly_cap_micro_usd).toBe(5_000_000);
  });
});

describe("refusals", () => {
  test("a code is single-use: the second exchange is refused and what the first bought is revoked", async () => {
    const c = await codeFor();
    const args = { metadata: c.metadata, clientInformation: c.info, authorizationCode: c.code, codeVerifier: c.codeVerifier, redirectUri: REDIRECT, resource: new URL(mcpUrl()) };
    const first = await exchangeAuthorization(svc.base, args);
    expect((await postMcp(first.access_token)).status).toBe(200);
    expect(await exchangeAuthorization(svc.base, args).catch((e: unknown) => e)).toBeInstanceOf(InvalidGrantError);
    expect((await postMcp(first.access_token)).status).toBe(401);
  });

  test("a wrong code verifier is refused", async () => {
    const c = await codeFor();
    const err = await exchangeAuthorization(svc.base, { metadata: c.metadata, clientInformation: c.info, authorizationCode: c.code, codeVerifier: "x".repeat(50), redirectUri: REDIRECT }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidGrantError);
    expect((err as OAuthError).message).toContain("code_verifier");
  });

  test("a wrong redirect URI: refused at the token endpoint, and never redirected to at authorize", async () => {
    const c = await codeFor();
    const err = await exchangeAuthorization(svc.base, { metadata: c.metadata, clientInformation: c.info, authorizationCode: c.code, codeVerifier: c.codeVerifier, redirectUri: "http://127.0.0.1:1/other" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidGrantError);
    const url = new URL(c.redirect_to);
    const authorize = new URL(`${svc.base}/v1/oauth/authorize`);
    for (const [k, v] of Object.entries({ response_type: "code", client_id: c.info.client_id, redirect_uri: "https://attacker.example/cb", code_challenge: "a".repeat(43), code_challenge_method: "S256" })) authorize.searchParams.set(k, v);
    const res = await fetch(authorize, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(url.searchParams.get("iss")).toBe(svc.base);
  });

  test("plain PKCE and a missing challenge are refused (redirected back with invalid_request)", async () => {
    const c = await codeFor();
    for (const [method, challenge] of [["plain", "a".repeat(43)], [null, null]] as const) {
      const authorize = new URL(`${svc.base}/v1/oauth/authorize`);
      for (const [k, v] of Object.entries({ response_type: "code", client_id: c.info.client_id, redirect_uri: REDIRECT, state: "z", code_challenge: challenge, code_challenge_method: method })) if (v) authorize.searchParams.set(k, v);
      const res = await fetch(authorize, { redirect: "manual" });
      expect(res.status).toBe(302);
      const loc = new URL(res.headers.get("location")!);
      expect(loc.origin + loc.pathname).toBe(REDIRECT);
      expect(loc.searchParams.get("error")).toBe("invalid_request");
      expect(loc.searchParams.get("state")).toBe("z");
      expect(loc.searchParams.get("iss")).toBe(svc.base);
    }
  });

  test("a wrong audience: an unknown resource is refused, and a token for /v1/mcp does not open a gateway server", async () => {
    const c = await codeFor();
    const authorize = new URL(`${svc.base}/v1/oauth/authorize`);
    for (const [k, v] of Object.entries({ response_type: "code", client_id: c.info.client_id, redirect_uri: REDIRECT, code_challenge: "a".repeat(43), code_challenge_method: "S256", resource: "https://other.example/mcp" })) authorize.searchParams.set(k, v);
    const loc = new URL((await fetch(authorize, { redirect: "manual" })).headers.get("location")!);
    expect(loc.searchParams.get("error")).toBe("invalid_target");

    // Exchanging for another resource than the one authorized.
    const err = await exchangeAuthorization(svc.base, { metadata: c.metadata, clientInformation: c.info, authorizationCode: c.code, codeVerifier: c.codeVerifier, redirectUri: REDIRECT, resource: new URL(`${svc.base}/v1/mcp/servers/mcps_x`) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidTargetError);

    // A token whose audience is /v1/mcp, presented to a gateway server: refused with invalid_token.
    const c2 = await codeFor();
    const tokens = await exchangeAuthorization(svc.base, { metadata: c2.metadata, clientInformation: c2.info, authorizationCode: c2.code, codeVerifier: c2.codeVerifier, redirectUri: REDIRECT });
    const up = startUpstream();
    const server = (await svc.h.json("POST", "/v1/mcp-servers", { body: { name: "g", url: up.url }, headers: bearer(t.session) })).body as { id: string };
    const res = await postMcp(tokens.access_token, `${svc.base}/v1/mcp/servers/${server.id}`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain(`resource_metadata="${svc.base}/.well-known/oauth-protected-resource/v1/mcp/servers/${server.id}"`);
    expect((await res.json() as any).error.message).toContain("issued for");
    // …while a token minted for that gateway server opens it.
    const c3 = await codeFor({ resource: `${svc.base}/v1/mcp/servers/${server.id}` });
    const gwTokens = await exchangeAuthorization(svc.base, { metadata: c3.metadata, clientInformation: c3.info, authorizationCode: c3.code, codeVerifier: c3.codeVerifier, redirectUri: REDIRECT, resource: new URL(`${svc.base}/v1/mcp/servers/${server.id}`) });
    expect((await postMcp(gwTokens.access_token, `${svc.base}/v1/mcp/servers/${server.id}`)).status).toBe(200);
    expect((await postMcp(gwTokens.access_token)).status).toBe(401);
  });

  test("the account's key controls: revoking the grant's key, or its breaker freezing it, stops the token", async () => {
    const c = await codeFor();
    const tokens = await exchangeAuthorization(svc.base, { metadata: c.metadata, clientInformation: c.info, authorizationCode: c.code, codeVerifier: c.codeVerifier, redirectUri: REDIRECT });
    const keyId = svc.h.ctx.db.query<{ key_id: string }, []>("SELECT key_id FROM oauth_grants ORDER BY created_at DESC, rowid DESC LIMIT 1").get()!.key_id;
    expect((await postMcp(tokens.access_token)).status).toBe(200);
    svc.h.ctx.db.query("UPDATE api_keys SET frozen_at = 1 WHERE id = ?").run(keyId);
    const frozen = await postMcp(tokens.access_token);
    expect(frozen.status).toBe(402);
    expect(((await frozen.json()) as any).error.type).toBe("circuit_breaker_tripped");
    expect((await svc.h.json("POST", `/v1/keys/${keyId}/unfreeze`, { headers: bearer(t.session) })).status).toBe(200);
    expect((await postMcp(tokens.access_token)).status).toBe(200);
    expect((await svc.h.json("DELETE", `/v1/keys/${keyId}`, { headers: bearer(t.session) })).status).toBe(200);
    const revoked = await postMcp(tokens.access_token);
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as any).error.type).toBe("api_key_revoked");
    // Refreshing cannot bring it back.
    const err = await refreshAuthorization(svc.base, { metadata: c.metadata, clientInformation: c.info, refreshToken: tokens.refresh_token! }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidGrantError);
  });

  test("a used refresh token is refused and revokes the grant (reuse detection); an expired access token is refused", async () => {
    const c = await codeFor();
    const tokens = await exchangeAuthorization(svc.base, { metadata: c.metadata, clientInformation: c.info, authorizationCode: c.code, codeVerifier: c.codeVerifier, redirectUri: REDIRECT });
    const next = await refreshAuthorization(svc.base, { metadata: c.metadata, clientInformation: c.info, refreshToken: tokens.refresh_token! });
    expect(await refreshAuthorization(svc.base, { metadata: c.metadata, clientInformation: c.info, refreshToken: tokens.refresh_token! }).catch((e: unknown) => e)).toBeInstanceOf(InvalidGrantError);
    expect((await postMcp(next.access_token)).status).toBe(401);

    const c2 = await codeFor();
    const t2 = await exchangeAuthorization(svc.base, { metadata: c2.metadata, clientInformation: c2.info, authorizationCode: c2.code, codeVerifier: c2.codeVerifier, redirectUri: REDIRECT });
    svc.h.clock.advance(3601 * 1000);
    const expired = await postMcp(t2.access_token);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as any).error.message).toContain("expired");
  });

  test("denying sends the browser back with access_denied; a forged CSRF token or a foreign Origin is refused", async () => {
    const metadata = await discoverAuthorizationServerMetadata(svc.base);
    const info = await registerClient(svc.base, { metadata, clientMetadata: new MemoryProvider(REDIRECT).clientMetadata });
    const start = () => startAuthorization(svc.base, { metadata, clientInformation: info, redirectUrl: REDIRECT, state: "d", resource: new URL(mcpUrl()) });
    const denied = await consent((await start()).authorizationUrl, t.session, { approve: false });
    expect(new URL(denied.redirect_to).searchParams.get("error")).toBe("access_denied");

    const consentUrl = (await fetch((await start()).authorizationUrl, { redirect: "manual" })).headers.get("location")!;
    const data = consentData(await (await fetch(consentUrl, { headers: { cookie: `svc_session=${t.session}` } })).text());
    const approve = (csrf: string, origin = svc.base) =>
      svc.h.json("POST", "/v1/oauth/authorize/approve", { body: { request_id: data.request_id, approve: true, csrf_token: csrf }, headers: { ...bearer(t.session), origin } });
    expect((await approve("forged")).body.error.type).toBe("csrf_refused");
    expect((await approve(data.csrf_token!, "https://evil.example")).status).toBe(403);
    // Another person's session cannot use this page's token either.
    const other = tenant(svc.h);
    const r = await svc.h.json("POST", "/v1/oauth/authorize/approve", { body: { request_id: data.request_id, approve: true, csrf_token: data.csrf_token }, headers: bearer(other.session) });
    expect(r.status).toBe(403);
    expect((await approve(data.csrf_token!)).status).toBe(200);
    expect((await approve(data.csrf_token!)).status).toBe(404); // answered once
  });
});

describe("clients", () => {
  test("registration: https or loopback redirect URIs only, RFC 7591 errors; GET /v1/oauth/client", async () => {
    const bad = await svc.h.json("POST", "/v1/oauth/register", { body: { redirect_uris: ["http://example.com/cb"], client_name: "x" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_client_metadata");
    expect(bad.body.error_description).toContain("loopback");
    const secret = await svc.h.json("POST", "/v1/oauth/register", { body: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" } });
    expect(secret.body.error).toBe("invalid_client_metadata");
    const ok = await svc.h.json("POST", "/v1/oauth/register", { body: { redirect_uris: ["https://app.example/cb", REDIRECT], client_name: "Good" } });
    expect(ok.status).toBe(201);
    expect(ok.body.token_endpoint_auth_method).toBe("none");
    expect(ok.body.client_secret).toBeUndefined();
    const info = await svc.h.json("GET", `/v1/oauth/client?client_id=${ok.body.client_id}&redirect_uri=${encodeURIComponent("http://127.0.0.1:5555/callback")}`);
    expect(info.body).toEqual({ client_id: ok.body.client_id, client_name: "Good", kind: "registered", redirect_uri_registered: true });
    expect((await svc.h.json("GET", "/v1/oauth/client?client_id=oc_nope")).status).toBe(401);
  });

  test("token endpoint errors are RFC 6749 bodies, form-encoded or JSON", async () => {
    const form = await fetch(`${svc.base}/v1/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=password&username=a" });
    expect(form.status).toBe(400);
    expect((await form.json()) as any).toEqual({ error: "unsupported_grant_type", error_description: expect.any(String) });
    const json = await svc.h.json("POST", "/v1/oauth/token", { body: { grant_type: "authorization_code", code: "nope", code_verifier: "x", client_id: "oc_x", redirect_uri: REDIRECT } });
    expect(json.body.error).toBe("invalid_grant");
    expect(json.headers.get("cache-control")).toBe("no-store");
  });

  test("a Client ID Metadata Document: an URL client_id whose document svc fetches", async () => {
    const doc = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (r) => Response.json({ client_id: new URL(r.url).href, client_name: "Doc Client", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
    });
    try {
      const clientId = `http://127.0.0.1:${doc.port}/client.json`;
      const authorize = new URL(`${svc.base}/v1/oauth/authorize`);
      for (const [k, v] of Object.entries({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: "b".repeat(43), code_challenge_method: "S256", state: "c" })) authorize.searchParams.set(k, v);
      const { redirect_to, page } = await consent(authorize, t.session);
      expect(page).toContain("Doc Client");
      expect(new URL(redirect_to).searchParams.get("code")).toMatch(/^oac-svc_/);
      expect((await svc.h.json("GET", `/v1/oauth/client?client_id=${encodeURIComponent(clientId)}`)).body).toMatchObject({ client_name: "Doc Client", kind: "metadata_document" });
    } finally {
      doc.stop(true);
    }
  });
});
