/**
 * What a person does in the console, in a real headless Chromium: mint a key and see its secret
 * exactly once (and the key works against the API), revoke a parent and see the cascade, verify
 * a receipt in the browser (the signer recovered by the page's own code — no call to
 * /v1/receipts/verify — and a forged signer list turning the verdict), replay a webhook's missed
 * events, and, as the operator, grant credit and suspend an account whose browser is then
 * signed out.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { chromiumPath, launchBrowser } from "../../support/browser.ts";
import { openConsole, serveConsole, type ServedConsole, signInWithWallet } from "../../support/console.ts";
import { ADMIN_TOKEN } from "../../support/harness.ts";
import { newWallet } from "../../support/siwe.ts";

const available = chromiumPath() !== null;
if (!available) console.warn("actions-browser.test.ts: /usr/bin/chromium is missing (test/run.sh installs it as root); skipped");

let svc: ServedConsole;
let browser: Browser;
beforeAll(async () => {
  svc = serveConsole();
  if (available) browser = await launchBrowser();
});
afterAll(() => svc.stop());

async function signedIn() {
  const c = await openConsole(browser, svc.base, newWallet());
  await signInWithWallet(c.page);
  const accountId = (await c.page.textContent("#account-id"))!;
  c.page.on("dialog", (d) => void d.accept());
  return { ...c, accountId };
}

const go = async (page: import("playwright-core").Page, path: string, ready: string) => {
  await page.click(`nav.side a[href="/console${path}"]`);
  await page.waitForSelector(ready);
};

test.skipIf(!available)("mint a key: the secret is shown once, works against the API, and is gone after a reload; revoking a parent revokes its delegated child", async () => {
  const c = await signedIn();
  await go(c.page, "/keys", "#mint");
  await c.page.fill("#key-name", "research agent");
  await c.page.check('input[name=scope][value="keys:delegate"]');
  await c.page.check('input[name=scope][value="billing:read"]');
  await c.page.fill("#key-cap", "5");
  await c.page.click("#mint");
  const secret = (await c.page.textContent("#new-key"))!.trim();
  expect(secret).toMatch(/^sk-svc_/);
  const credit = await fetch(`${svc.base}/v1/credit`, { headers: { authorization: `Bearer ${secret}` } });
  expect(credit.status).toBe(200);
  const row = c.page.locator("tr", { hasText: "research agent" });
  expect(await row.textContent()).toContain("$5.00");

  await c.page.click("text=I have stored it");
  expect(await c.page.locator("#new-key").count()).toBe(0);
  await c.page.reload();
  await c.page.waitForSelector("tr:has-text('research agent')");
  expect(await c.page.content()).not.toContain(secret);

  // A child delegated by the key itself (as an agent would), shown under its parent.
  const child = await fetch(`${svc.base}/v1/keys/delegate`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "sub-agent", scopes: ["billing:read"] }),
  });
  expect(child.status).toBe(201);
  await c.page.reload();
  await c.page.waitForSelector("tr:has-text('sub-agent')");
  await c.page.locator("tr", { hasText: "research agent" }).locator("button", { hasText: "Revoke (+1)" }).click();
  await c.page.waitForSelector("#revoked-note");
  expect((await c.page.textContent("#revoked-note"))!).toMatch(/Revoked 2 keys/);
  expect((await fetch(`${svc.base}/v1/credit`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
  expect(c.problems).toEqual([]);
}, 60_000);

test.skipIf(!available)("a receipt verifies in the browser, without asking svc to verify it; a forged signer list turns the verdict", async () => {
  const c = await signedIn();
  svc.h.ctx.ledger.credit(c.accountId, 10_000_000, { type: "deposit" });
  const held = svc.h.ctx.meter.reserve({ accountId: c.accountId, keyId: null, amount: 1_000_000, kind: "inference", resource: "gpt-test", resourceType: "model", runId: null });
  const receiptId = svc.h.ctx.meter.settle(held, 4_321, { units: { input_tokens: 12, output_tokens: 34 } }).receipt!.id;
  const asked: string[] = [];
  c.page.on("request", (r) => asked.push(new URL(r.url()).pathname));

  await go(c.page, "/receipts", `a[href="/console/receipts/${receiptId}"]`);
  await c.page.click(`a[href="/console/receipts/${receiptId}"]`);
  await c.page.waitForSelector("#verify");
  expect(JSON.parse((await c.page.textContent("#payload"))!)).toMatchObject({ id: receiptId, cost_micro_usd: 4321, account: c.accountId });
  await c.page.click("#verify");
  await c.page.waitForSelector("#verdict");
  expect(await c.page.textContent("#verdict")).toContain(`Valid: signed by ${svc.h.ctx.signer.address}`);
  expect(asked).toContain("/v1/receipts/pubkey");
  expect(asked).not.toContain("/v1/receipts/verify");

  // The page's check is its own: told of another signer only, it calls the same receipt not valid.
  await c.page.route("**/v1/receipts/pubkey", (route) =>
    route.fulfill({ contentType: "application/json", body: JSON.stringify({ signers: [{ address: "0x000000000000000000000000000000000000dEaD", valid_from: "2020-01-01T00:00:00Z", valid_until: null }] }) }),
  );
  await c.page.click("#verify");
  await c.page.waitForSelector("#verdict.error");
  expect(await c.page.textContent("#verdict")).toContain("not one of svc's published signers");
  expect(c.problems).toEqual([]);
}, 60_000);

test.skipIf(!available)("a webhook added in the console replays the events it missed since a time", async () => {
  const c = await signedIn();
  await go(c.page, "/webhooks", "#hook-url");
  await c.page.fill("#hook-url", "http://127.0.0.1:9/hook");
  await c.page.click("text=Add webhook");
  await c.page.waitForSelector("text=Signing secret");
  // An event after the webhook was added that it never got (no delivery worker runs here: missed).
  svc.h.ctx.ledger.credit(c.accountId, 10_000_000, { type: "deposit" });
  const held = svc.h.ctx.meter.reserve({ accountId: c.accountId, keyId: null, amount: 1_000, kind: "inference", resource: "gpt-test", resourceType: "model", runId: null });
  svc.h.ctx.meter.settle(held, 500, { units: {} });
  await c.page.click("text=Deliveries");
  await c.page.waitForSelector("text=No deliveries yet");
  await c.page.locator("button", { hasText: /^Replay$/ }).click();
  await c.page.waitForSelector(".replayed");
  expect(await c.page.textContent(".replayed")).toMatch(/Queued [1-9]\d* events? again/);
  await c.page.waitForSelector("text=receipt_minted");
  expect(c.problems).toEqual([]);
}, 60_000);

test.skipIf(!available)("the operator signs in with the admin token, grants credit and suspends an account, whose console is then signed out", async () => {
  const user = await signedIn();
  const op = await openConsole(browser, svc.base);
  await op.page.goto(`${svc.base}/console/operator`);
  await op.page.fill("#admin-token", "wrong");
  op.allow("/console/api/operator");
  await op.page.click("button[type=submit]");
  await op.page.waitForSelector("text=the admin token is not valid");
  await op.page.fill("#admin-token", ADMIN_TOKEN);
  await op.page.click("button[type=submit]");
  await op.page.waitForSelector("#accounts-total");
  expect(await op.page.evaluate("localStorage.length + sessionStorage.length")).toBe(0);
  expect(await op.page.content()).not.toContain(ADMIN_TOKEN);

  await op.page.click('nav.side a[href="/console/operator/accounts"]');
  await op.page.fill("#account-search", user.accountId);
  await op.page.click("text=Search");
  await op.page.click(`a[href="/console/operator/accounts/${user.accountId}"]`);
  await op.page.waitForSelector("#suspend-toggle");
  await op.page.fill("#credit-amount", "12.50");
  await op.page.fill("#credit-reason", "launch promotion");
  await op.page.click("text=Apply");
  await op.page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector("#account-balance")?.textContent.startsWith("$12.50"));

  await op.page.fill("#suspend-reason", "abuse report 42");
  await op.page.click("#suspend-toggle");
  await op.page.waitForSelector("text=Unsuspend account");
  expect(await op.page.textContent(".facts")).toContain("abuse report 42");

  // The suspended account's browser: its session is refused, so the console shows sign-in.
  user.allow("/v1/");
  await user.page.reload();
  await user.page.waitForSelector("#siwe");
  expect([...user.problems, ...op.problems]).toEqual([]);
}, 60_000);
