/**
 * The consent page in a real headless Chromium: an MCP client (the SDK's auth helpers) sends the
 * browser to svc's authorize endpoint; the page, not signed in, offers SIWE; a wallet injected
 * into the page (window.ethereum, signing with viem) signs in; the page reloads signed in, the
 * person approves, and the browser lands on the client's loopback redirect with a code, which the
 * client exchanges for a working token. The page runs under its strict CSP (no violation).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { discoverAuthorizationServerMetadata, exchangeAuthorization, registerClient, startAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import { newWallet } from "../../support/siwe.ts";
import { chromiumPath, launchBrowser } from "../../support/browser.ts";
import { MemoryProvider } from "../../support/mcp-oauth.ts";
import { serveSvc, type ServedSvc } from "../../support/mcp-svc.ts";
import { ManualClock } from "../../../src/core/clock.ts";

let svc: ServedSvc;
beforeAll(() => {
  // At the wall clock's time: the browser keeps the session cookie only while its Expires is ahead of the real date.
  svc = serveSvc(undefined, new ManualClock(Date.now()));
});
afterAll(() => svc.stop());

const available = chromiumPath() !== null;
if (!available) console.warn("consent-browser.test.ts: /usr/bin/chromium is missing (test/run.sh installs it as root); skipped");

test.skipIf(!available)("sign in with an injected wallet, approve, land on the loopback redirect with a code", async () => {
  // The client's loopback redirect listener (RFC 8252), as a desktop MCP client runs one.
  let resolveCallback: (u: URL) => void;
  const callback = new Promise<URL>((r) => (resolveCallback = r));
  const listener = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(r) {
      resolveCallback(new URL(r.url));
      return new Response("<!doctype html><title>done</title><p>You can close this window.</p>", { headers: { "content-type": "text/html" } });
    },
  });
  const redirect = `http://127.0.0.1:${listener.port}/callback`;
  try {
    const metadata = await discoverAuthorizationServerMetadata(svc.base);
    const info = await registerClient(svc.base, { metadata, clientMetadata: new MemoryProvider(redirect, { client_name: "Browser Test Client" }).clientMetadata });
    const { authorizationUrl, codeVerifier } = await startAuthorization(svc.base, {
      metadata,
      clientInformation: info,
      redirectUrl: redirect,
      state: "browser-state",
      resource: new URL(`${svc.base}/v1/mcp`),
      scope: "mcp billing:read",
    });

    const wallet = newWallet();
    const browser = await launchBrowser();
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    // CSP violations and script errors are console errors; a failed request is checked by its URL (the browser asks for /favicon.ico on its own).
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(m.text());
    });
    page.on("response", (r) => {
      if (r.status() >= 400 && !r.url().endsWith("/favicon.ico")) problems.push(`${r.status()} ${r.url()}`);
    });
    page.on("pageerror", (e) => problems.push(e.message));
    await page.exposeFunction("__svcTestSign", (message: string) => wallet.signMessage({ message }));
    await page.addInitScript((address: string) => {
      (globalThis as unknown as { ethereum: unknown }).ethereum = {
        request: async ({ method, params }: { method: string; params?: unknown[] }) => {
          if (method === "eth_requestAccounts" || method === "eth_accounts") return [address.toLowerCase()];
          if (method === "eth_chainId") return "0x1";
          if (method === "personal_sign") return (globalThis as unknown as { __svcTestSign(m: string): Promise<string> }).__svcTestSign(params![0] as string);
          throw new Error(`unsupported ${method}`);
        },
      };
    }, wallet.address);

    await page.goto(authorizationUrl.href);
    expect(page.url()).toStartWith(`${svc.base}/v1/oauth/consent?request=oar_`);
    expect(await page.textContent("h1")).toBe("Authorize Browser Test Client");
    expect(await page.textContent("#redirect-host")).toBe(`127.0.0.1:${listener.port}`);
    expect(await page.textContent("#requested-scope")).toBe("mcp billing:read");
    expect(await page.locator("#approve").count()).toBe(0);
    await page.screenshot({ path: "/tmp/svc-consent-signed-out.png" });

    await Promise.all([page.waitForEvent("load"), page.click("#siwe")]);
    await page.waitForSelector("#approve");
    expect(await page.isChecked('input[value="billing:read"]')).toBe(true);
    expect(await page.isChecked('input[value="inference"]')).toBe(false);
    await page.screenshot({ path: "/tmp/svc-consent-signed-in.png" });
    await page.fill("#cap", "2.50");
    await page.click("#approve");

    const landed = await callback;
    expect(landed.pathname).toBe("/callback");
    expect(landed.searchParams.get("state")).toBe("browser-state");
    expect(landed.searchParams.get("iss")).toBe(svc.base);
    const code = landed.searchParams.get("code")!;
    expect(code).toMatch(/^oac-svc_/);
    expect(problems).toEqual([]);

    const tokens = await exchangeAuthorization(svc.base, { metadata: metadata!, clientInformation: info, authorizationCode: code, codeVerifier, redirectUri: redirect, resource: new URL(`${svc.base}/v1/mcp`) });
    expect(tokens.scope).toBe("billing:read mcp");
    const ping = await fetch(`${svc.base}/v1/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(ping.status).toBe(200);
    const cap = svc.h.ctx.db.query<{ monthly_cap_micro_usd: number }, []>("SELECT monthly_cap_micro_usd FROM oauth_authorizations WHERE status = 'exchanged'").get()!;
    expect(cap.monthly_cap_micro_usd).toBe(2_500_000);
    await context.close();
  } finally {
    listener.stop(true);
  }
}, 60_000);
