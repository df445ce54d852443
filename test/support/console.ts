/**
 * The web console in a real headless Chromium, for the console tests, the screenshot script and
 * the bench: svc on a real socket (the harness's app, the system clock, because the browser
 * signs SIWE messages with its own), reached as http://localhost:<port> (a WebAuthn relying
 * party id must be a domain, so passkeys work there), a test wallet injected as an EIP-1193
 * provider, and a record of everything that went wrong on the page: script errors, console
 * errors, CSP violations (the securitypolicyviolation event), failed requests.
 */
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { PrivateKeyAccount } from "viem/accounts";
import { systemClock } from "../../src/core/clock.ts";
import type { Config } from "../../src/config.ts";
import { onCleanup } from "./cleanup.ts";
import { type Harness, makeHarness } from "./harness.ts";

export interface ServedConsole {
  h: Harness;
  base: string;
  stop(): void;
}

/** svc serving the console at http://localhost:<port>/console, passkeys on, admin token set. */
export function serveConsole(config?: (c: Config) => void): ServedConsole {
  let handle: (r: Request) => Response | Promise<Response> = () => new Response("starting", { status: 503 });
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => handle(r) });
  const base = `http://localhost:${server.port}`;
  const h = makeHarness({
    admin: true,
    clock: systemClock as never,
    config: (c) => {
      c.public_url = base;
      c.passkeys.rp_id = "localhost";
      c.passkeys.origin = base;
      c.webhooks.allow_private = true;
      c.rate_limit.public_per_minute = 100_000;
      c.rate_limit.public_burst = 100_000;
      config?.(c);
    },
  });
  handle = (r) => h.app.handle(r);
  const stop = () => {
    server.stop(true);
    h.close();
  };
  onCleanup(stop);
  return { h, base, stop };
}

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Everything that went wrong so far (expected: empty). */
  problems: string[];
  /** Failed responses the test expects (an error it provoked), by URL substring. */
  allow(urlPart: string): void;
}

/**
 * A fresh browser context on the console, with `wallet` injected as window.ethereum. Requests
 * answering 4xx/5xx count as problems unless allowed.
 */
export async function openConsole(browser: Browser, base: string, wallet?: PrivateKeyAccount, opts: { colorScheme?: "light" | "dark" } = {}): Promise<ConsolePage> {
  const context = await browser.newContext({ colorScheme: opts.colorScheme ?? "light", viewport: { width: 1280, height: 860 } });
  onCleanup(() => void context.close().catch(() => undefined));
  const page = await context.newPage();
  const problems: string[] = [];
  const allowed: string[] = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(`console: ${m.text()}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400 && !allowed.some((a) => r.url().includes(a))) problems.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  await page.exposeFunction("__svcCspViolation", (text: string) => problems.push(`CSP violation: ${text}`));
  await page.addInitScript(() => {
    addEventListener("securitypolicyviolation", (e) => {
      const v = e as unknown as { violatedDirective: string; blockedURI: string };
      (globalThis as unknown as { __svcCspViolation(t: string): void }).__svcCspViolation(`${v.violatedDirective} blocked ${v.blockedURI}`);
    });
  });
  if (wallet) await injectWallet(page, wallet);
  await page.goto(`${base}/console/`);
  return { context, page, problems, allow: (u) => void allowed.push(u) };
}

/** window.ethereum answering as `wallet`: accounts, chain 1, personal_sign by viem. */
export async function injectWallet(page: Page, wallet: PrivateKeyAccount): Promise<void> {
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
}

/** Signs in with the injected wallet and waits for the overview. */
export async function signInWithWallet(page: Page): Promise<void> {
  await page.click("#siwe");
  await page.waitForSelector("#spendable");
}

/** A DevTools virtual authenticator (CTAP2, resident keys, user verification): what a platform passkey would be. */
export async function virtualAuthenticator(context: BrowserContext, page: Page): Promise<CDPSession> {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return cdp;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core on the page as it is now: the serious and critical violations (WCAG 2 A/AA rules),
 * one line each. Injected through DevTools (page.evaluate), so the page's CSP is not loosened.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const g = globalThis as unknown as { document: unknown; axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } };
    const r = await g.axe.run(g.document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(", ")}`);
}
