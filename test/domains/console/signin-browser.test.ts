/**
 * The console in a real headless Chromium: sign in with a wallet injected as an EIP-1193
 * provider (SIWE), every account page rendered under the strict CSP with no script error, no
 * CSP violation and no failed request, and with no serious accessibility violation (axe-core);
 * a passkey registered and then used to sign in, with the DevTools virtual authenticator.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { chromiumPath, launchBrowser } from "../../support/browser.ts";
import { accessibilityProblems, openConsole, serveConsole, type ServedConsole, signInWithWallet, virtualAuthenticator } from "../../support/console.ts";
import { newWallet } from "../../support/siwe.ts";

const available = chromiumPath() !== null;
if (!available) console.warn("signin-browser.test.ts: /usr/bin/chromium is missing (test/run.sh installs it as root); skipped");

let svc: ServedConsole;
let browser: Browser;
beforeAll(async () => {
  svc = serveConsole();
  if (available) browser = await launchBrowser();
});
afterAll(() => svc.stop());

const ACCOUNT_PAGES = ["/", "/keys", "/usage", "/receipts", "/deposits", "/webhooks", "/agents", "/mcp", "/sandboxes", "/orgs", "/security"];

test.skipIf(!available)("SIWE sign-in with an injected wallet; every account page renders with no CSP violation, no error and no serious accessibility violation", async () => {
  const wallet = newWallet();
  const c = await openConsole(browser, svc.base, wallet);
  expect(await c.page.textContent("h1")).toBe("Sign in to svc");
  expect(await accessibilityProblems(c.page)).toEqual([]);
  await signInWithWallet(c.page);
  const accountId = (await c.page.textContent("#account-id"))!;
  expect(accountId).toMatch(/^acct_/);
  expect(await c.page.textContent("#spendable")).toBe("$0.00");

  for (const path of ACCOUNT_PAGES) {
    await c.page.click(`nav.side a[href="/console${path}"]`);
    await c.page.waitForFunction((p) => {
      const g = globalThis as unknown as { location: { pathname: string }; document: { body: { textContent: string } } };
      return g.location.pathname === `/console${p}` && !g.document.body.textContent.includes("Loading…");
    }, path);
    await c.page.waitForSelector("main h1");
    expect({ path, problems: await accessibilityProblems(c.page) }).toEqual({ path, problems: [] });
  }
  // A deep link loads the page directly (the server answers every /console path with the app).
  await c.page.goto(`${svc.base}/console/keys`);
  await c.page.waitForSelector("#mint");
  // Dark theme follows the system too, and stays accessible.
  const dark = await openConsole(browser, svc.base, wallet, { colorScheme: "dark" });
  await signInWithWallet(dark.page);
  expect(await dark.page.evaluate("getComputedStyle(document.body).backgroundColor")).toBe("rgb(18, 20, 23)");
  expect(await accessibilityProblems(dark.page)).toEqual([]);
  expect([...c.problems, ...dark.problems]).toEqual([]);
}, 90_000);

test.skipIf(!available)("a passkey registered on the security page signs in on its own, with the DevTools virtual authenticator", async () => {
  const c = await openConsole(browser, svc.base, newWallet());
  await virtualAuthenticator(c.context, c.page);
  await signInWithWallet(c.page);
  const accountId = await c.page.textContent("#account-id");
  await c.page.click('nav.side a[href="/console/security"]');
  await c.page.waitForSelector("#add-passkey");
  await c.page.click("#add-passkey");
  await c.page.waitForSelector("table:has(caption:text('Passkeys')) tbody tr");
  expect(await c.page.locator("table:has(caption:text('Passkeys')) tbody tr").count()).toBe(1);

  await c.page.click("#sign-out");
  await c.page.waitForSelector("#passkey-signin");
  await c.page.click("#passkey-signin");
  await c.page.waitForSelector("#spendable");
  expect(await c.page.textContent("#account-id")).toBe(accountId);
  const sessions = svc.h.ctx.db.query<{ method: string }, [string]>("SELECT method FROM sessions WHERE account_id = ? ORDER BY created_at").all(accountId!);
  expect(sessions.map((s) => s.method)).toEqual(["siwe", "passkey"]);
  expect(c.problems).toEqual([]);
}, 60_000);
