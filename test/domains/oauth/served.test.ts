/**
 * The OAuth and MCP gateway operations the SDK tests reach over real sockets, driven once
 * through the harness so each success answer is checked against the OpenAPI document: authorize
 * (302 to the consent page), the code exchange, refresh and revoke at the token endpoints, and
 * a JSON-RPC call through POST /v1/mcp/servers/:id.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { bearer } from "../../support/harness.ts";
import { consentData } from "../../support/mcp-oauth.ts";
import { serveSvc, type ServedSvc, tenant } from "../../support/mcp-svc.ts";
import { startUpstream } from "../../support/mcp-upstream.ts";

const REDIRECT = "http://127.0.0.1:33419/callback";
let svc: ServedSvc;
let t: ReturnType<typeof tenant>;
beforeAll(() => {
  svc = serveSvc();
  t = tenant(svc.h, { credit: 1_000_000 });
});
afterAll(() => svc.stop());

const form = (fields: Record<string, string>) => ({ raw: new URLSearchParams(fields).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });

test("authorize → consent → token → refresh → revoke, each answer as the document declares it", async () => {
  const h = svc.h;
  const client = await h.json("POST", "/v1/oauth/register", { body: { redirect_uris: [REDIRECT], client_name: "Served check" } });
  expect(client.status).toBe(201);
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: client.body.client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st",
    scope: "mcp",
    resource: `${svc.base}/v1/mcp`,
  });
  const authorize = await h.request("GET", `/v1/oauth/authorize?${query}`);
  expect(authorize.status).toBe(302);
  const consentUrl = new URL(authorize.headers.get("location")!);
  const page = await h.request("GET", `${consentUrl.pathname}${consentUrl.search}`, { headers: { cookie: `svc_session=${t.session}` } });
  const data = consentData(await page.text());
  const approved = await h.json("POST", "/v1/oauth/authorize/approve", {
    body: { request_id: data.request_id, approve: true, csrf_token: data.csrf_token },
    headers: { ...bearer(t.session), origin: svc.base },
  });
  expect(approved.status).toBe(200);
  const code = new URL(approved.body.redirect_to).searchParams.get("code")!;

  const tokens = await h.json("POST", "/v1/oauth/token", form({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: client.body.client_id, redirect_uri: REDIRECT }));
  expect(tokens.status).toBe(200);
  expect(tokens.body.token_type).toBe("Bearer");
  const refreshed = await h.json("POST", "/v1/oauth/token", form({ grant_type: "refresh_token", refresh_token: tokens.body.refresh_token, client_id: client.body.client_id }));
  expect(refreshed.status).toBe(200);
  expect(refreshed.body.refresh_token).not.toBe(tokens.body.refresh_token);
  const revoked = await h.request("POST", "/v1/oauth/revoke", form({ token: refreshed.body.access_token, client_id: client.body.client_id }));
  expect(revoked.status).toBe(200);
});

test("a JSON-RPC call through the gateway answers as declared", async () => {
  const up = startUpstream();
  const server = await svc.h.json("POST", "/v1/mcp-servers", { body: { name: "served", url: up.url, allowed_tools: ["echo"] }, headers: bearer(t.session) });
  expect(server.status).toBe(201);
  const res = await svc.h.request("POST", `/v1/mcp/servers/${server.body.id}`, {
    headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    raw: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "served-check", version: "1" } } }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toContain('"serverInfo"');
});
