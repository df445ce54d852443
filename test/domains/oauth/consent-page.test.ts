/**
 * The consent page through the harness (every answer checked against the OpenAPI document): its
 * strict CSP and no-store, HTML-escaped client data, the sign-in choices (passkey only where
 * configured), the page for an answered or unknown request, and the SIWE message it has the
 * wallet sign — which /v1/auth/verify accepts.
 */
import { afterEach, expect, test } from "bun:test";
import { accountWithSession } from "../../support/fixtures.ts";
import { type Harness, makeHarness } from "../../support/harness.ts";
import { consentData } from "../../support/mcp-oauth.ts";
import { newWallet } from "../../support/siwe.ts";

let h: Harness;
afterEach(() => h?.close());

const REDIRECT = "http://127.0.0.1:9999/cb";

async function pendingRequest(name: string): Promise<string> {
  const reg = await h.json("POST", "/v1/oauth/register", { body: { redirect_uris: [REDIRECT], client_name: name } });
  const q = new URLSearchParams({ response_type: "code", client_id: reg.body.client_id, redirect_uri: REDIRECT, code_challenge: "c".repeat(43), code_challenge_method: "S256", state: "s" });
  const res = await h.request("GET", `/v1/oauth/authorize?${q}`);
  expect(res.status).toBe(302);
  return new URL(res.headers.get("location")!).pathname + new URL(res.headers.get("location")!).search;
}

test("strict CSP, no-store, escaped client name; signed out: SIWE, and a passkey only where configured", async () => {
  h = makeHarness({ config: (c) => ((c.passkeys.rp_id = "svc.test"), (c.passkeys.origin = "http://svc.test")) });
  const consent = await pendingRequest('<img src=x onerror="alert(1)">');
  const res = await h.request("GET", consent);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/html");
  const csp = res.headers.get("content-security-policy")!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("unsafe-inline");
  expect(res.headers.get("cache-control")).toBe("no-store");
  const html = await res.text();
  expect(html).not.toContain("<img src=x");
  expect(html).toContain("<h1>Authorize &#60;img src=x onerror=&#34;alert(1)&#34;&#62;</h1>");
  expect(html).toContain('id="siwe"');
  expect(html).toContain('id="passkey"');
  expect(consentData(html).csrf_token).toBeUndefined();
});

test("signed in (svc_session cookie): the approve form with a CSRF token; no passkey button without passkeys", async () => {
  h = makeHarness();
  const consent = await pendingRequest("Plain");
  expect(await (await h.request("GET", consent)).text()).not.toContain('id="passkey"');
  const { session } = accountWithSession(h.ctx);
  const html = await (await h.request("GET", consent, { headers: { cookie: `svc_session=${session.token}` } })).text();
  expect(html).toContain('id="approve"');
  expect(consentData(html).csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
});

test("an unknown or answered request: the page says it is over", async () => {
  h = makeHarness();
  const res = await h.request("GET", "/v1/oauth/consent?request=oar_nope");
  expect(res.status).toBe(200);
  expect(await res.text()).toContain("This authorization request is over");
});

test("the page's SIWE message: svc's domain, the checksummed address, and /v1/auth/verify accepts it", async () => {
  h = makeHarness();
  const wallet = newWallet();
  const { nonce } = (await h.json("POST", "/v1/auth/nonce")).body;
  const r = await h.json("GET", `/v1/oauth/consent/siwe-message?address=${wallet.address.toLowerCase()}&chain_id=1&nonce=${nonce}`);
  expect(r.status).toBe(200);
  expect(r.body.message).toStartWith(`${new URL(h.ctx.config.public_url).host} wants you to sign in with your Ethereum account:\n${wallet.address}`);
  const verified = await h.json("POST", "/v1/auth/verify", { body: { message: r.body.message, signature: await wallet.signMessage({ message: r.body.message }) } });
  expect(verified.status).toBe(200);
  expect((await h.json("GET", "/v1/oauth/consent/siwe-message?address=0x12&chain_id=1&nonce=abcdefgh")).status).toBe(400);
});
