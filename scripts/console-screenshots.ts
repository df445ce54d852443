#!/usr/bin/env bun
/**
 * docs/console/*.png: screenshots of the web console (docs/console.md), taken in the headless
 * Chromium the console tests use (test/support/console.ts), of a throwaway svc seeded with
 * realistic data.
 *
 *   bun run docs:console-screenshots     rewrite docs/console/*.png
 *
 * What it does: serves svc on a loopback socket (serveConsole: a temp data dir, admin token and
 * passkeys on, private webhook targets allowed; here also a treasury and one chain so the
 * deposits page has something to show), signs in in the browser with a fixed test wallet (SIWE,
 * so the address is the same every run), then seeds that account the way the tests do: credit
 * through the ledger, keys (one delegated, one frozen) and a webhook through the HTTP API with
 * the browser's session, metered work settled through the meter (each settle mints a signed
 * receipt), two USDT deposits recorded from a made-up chain inspection (one credited, one still
 * waiting for confirmations; no chain is contacted), a few more accounts for the operator pages,
 * and one pass of the webhook jobs (deliveries to a closed port, so they show as retrying).
 *
 * Then it takes each screenshot at 1280×860, full page, light theme (the overview also dark).
 * Every wait has a timeout; the browser, the server and the temp dir are gone when it exits.
 * The account, key and receipt ids and the times differ from run to run.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { keccak256, toBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createAccount } from "../src/domains/accounts/service.ts";
import { addWallet } from "../src/domains/auth/wallets.ts";
import { claimableTransfers, recordTransfers } from "../src/domains/billing/deposits.ts";
import type { Inspection } from "../src/domains/billing/transfer-check.ts";
import { registerWebhookJobs } from "../src/domains/webhooks/delivery.ts";
import { cleanUp, loadConsoleSupport, within } from "./console-support.ts";

const OUT = join(import.meta.dir, "../docs/console");
/** Per wait in the browser, and for the whole run. */
const STEP_TIMEOUT_MS = 20_000;
const RUN_TIMEOUT_MS = 180_000;

const USD = 1_000_000;
/** A fixed throwaway key: the same wallet address in every run's screenshots. */
const WALLET = privateKeyToAccount(keccak256(toBytes("svc docs: console screenshots wallet")));
const TREASURY = privateKeyToAccount(keccak256(toBytes("svc docs: console screenshots treasury"))).address;
/** USDT's contract on Base (only shown; nothing dials the chain: its RPC URL is a closed port). */
const USDT = "0xfde4c96c8593536e31f229ea8f37b2ada2699bb2";

const S = await loadConsoleSupport();

async function main(): Promise<string[]> {
  const svc = S.serveConsole((c) => {
    c.billing.treasury = TREASURY;
    c.chains = [{ name: "base", chain_id: 8453, rpc_url: "http://127.0.0.1:9", usdt: USDT, decimals: 6, confirmations: 12, explorer_url: "https://basescan.org" }];
  });
  const { h, base } = svc;
  // Source mode builds the bundle on the first request: do it before the browser's clock starts.
  await within(60_000, "the console bundle", fetch(`${base}/console/`).then((r) => r.text()));

  const browser = await S.launchBrowser();
  try {
    const c = await S.openConsole(browser, base, WALLET);
    const page = c.page;
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    page.setDefaultNavigationTimeout(STEP_TIMEOUT_MS);
    mkdirSync(OUT, { recursive: true });
    const written: string[] = [];
    const shot = async (name: string) => {
      // The app focuses each page's heading for screen readers; no focus ring in the pictures.
      await page.evaluate("document.activeElement?.blur()");
      await page.screenshot({ path: join(OUT, name), fullPage: true, animations: "disabled", caret: "hide", timeout: STEP_TIMEOUT_MS });
      written.push(name);
      console.error(`[screenshots] ${name}`);
    };
    /** Loads a console path and waits for `selector` and for no "Loading…" left on the page. */
    const show = async (path: string, selector: string) => {
      await page.goto(`${base}/console${path}`);
      await ready(page, selector);
    };

    await ready(page, "#siwe");
    await shot("signin.png");

    await S.signInWithWallet(page);
    const accountId = (await page.textContent("#account-id"))?.trim() ?? "";
    if (!accountId.startsWith("acct_")) throw new Error(`no account id after sign-in: "${accountId}"`);
    const session = (await c.context.cookies()).find((k) => k.name === "svc_session")?.value;
    if (!session) throw new Error("no svc_session cookie after sign-in");
    const auth = S.bearer(session);

    await seed(h, accountId, auth);

    await show("/", "#spendable");
    await page.waitForSelector("table a[href^='/console/receipts/']");
    await shot("overview.png");
    await page.emulateMedia({ colorScheme: "dark" });
    await shot("overview-dark.png");
    await page.emulateMedia({ colorScheme: "light" });

    await show("/keys", "table tbody tr");
    await page.fill("#key-name", "docs example key");
    await page.fill("#key-cap", "2.50");
    await page.click("#mint");
    await page.waitForSelector("#new-key");
    await page.waitForSelector("table tbody tr:has-text('docs example key')");
    await shot("keys.png");

    await show("/usage", "table:has(caption:text('Usage events')) tbody tr");
    await shot("usage.png");

    await show("/receipts", "table tbody tr a[href^='/console/receipts/']");
    await shot("receipts.png");
    await page.click("table tbody tr:first-child a[href^='/console/receipts/']");
    await ready(page, "#verify");
    await page.click("#verify");
    await page.waitForSelector("#verdict");
    const verdict = (await page.textContent("#verdict")) ?? "";
    if (!verdict.startsWith("Valid")) throw new Error(`the receipt did not verify in the browser: ${verdict}`);
    await shot("receipt-verified.png");

    await show("/deposits", "#treasury");
    await page.waitForSelector("table:has(caption:text('Deposits')) tbody tr");
    await shot("deposits.png");

    await show("/webhooks", "li[data-webhook]");
    await page.click("li[data-webhook] button[aria-expanded]");
    await page.waitForSelector("li[data-webhook] table tbody tr");
    await ready(page, "li[data-webhook] table");
    await shot("webhooks.png");

    await show("/operator", "#admin-token");
    await page.fill("#admin-token", S.ADMIN_TOKEN);
    await page.click("form button[type=submit]");
    await ready(page, "#accounts-total");
    await shot("operator-metrics.png");
    await page.click('nav.side a[href="/console/operator/accounts"]');
    await ready(page, "table tbody tr a[href^='/console/operator/accounts/']");
    await shot("operator-accounts.png");

    if (c.problems.length) console.error(`[screenshots] the page reported problems:\n  ${c.problems.join("\n  ")}`);
    return written;
  } finally {
    await within(10_000, "closing the browser", browser.close()).catch((e) => console.error(`[screenshots] ${e}`));
  }
}

async function ready(page: Page, selector: string): Promise<void> {
  await page.waitForSelector(selector, { state: "visible", timeout: STEP_TIMEOUT_MS });
  await page.waitForFunction('!document.body.textContent.includes("Loading…")', null, { timeout: STEP_TIMEOUT_MS });
}

type Harness = ReturnType<typeof S.serveConsole>["h"];

/** Realistic data for the signed-in account (and a few others), as the tests make it. */
async function seed(h: Harness, accountId: string, auth: Record<string, string>): Promise<void> {
  const ctx = h.ctx;
  const api = async <T>(method: string, path: string, body?: unknown, headers = auth): Promise<T> => {
    const r = await h.json(method, path, { headers, body });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as T;
  };

  ctx.ledger.credit(accountId, 25 * USD, { type: "deposit" });

  // The webhook first, so the events below are delivered to it.
  registerWebhookJobs(ctx);
  await api("POST", "/v1/webhooks", {
    url: "http://127.0.0.1:9/hook",
    events: ["receipt_minted", "deposit_credited", "balance_low", "spend_cap_reached", "key_created"],
    description: "agent ops alerts",
  });

  type Minted = { id: string; key: string };
  const research = await api<Minted>("POST", "/v1/keys", { name: "research agent", scopes: ["inference", "sandboxes", "mcp", "memory", "keys:delegate"], monthly_cap_micro_usd: 10 * USD });
  const evals = await api<Minted>("POST", "/v1/keys", { name: "nightly evals", scopes: ["inference"], monthly_cap_micro_usd: 5 * USD });
  const ci = await api<Minted>("POST", "/v1/keys", { name: "ci runner", scopes: ["inference", "sandboxes", "state"] });
  const sub = await api<Minted>("POST", "/v1/keys/delegate", { name: "web-search subagent", scopes: ["inference"], monthly_cap_micro_usd: 2 * USD }, S.bearer(research.key));

  const settle = (keyId: string | null, kind: string, resource: string, cost: number, units: Record<string, unknown>, runId: string | null = null, who = accountId) => {
    const r = ctx.meter.reserve({ accountId: who, keyId, amount: cost + 50_000, kind, resource, resourceType: kind === "mcp_call" ? "service" : kind === "inference" ? "model" : undefined, runId });
    ctx.meter.settle(r, cost, { units });
  };
  const tokens = (input_tokens: number, output_tokens: number, provider: string) => ({ input_tokens, output_tokens, cached_input_tokens: 0, api: "chat.completions", stream: false, attestations: { routing: { provider, privacy_tier: "standard" } } });
  // Costs as the providers' list prices would make them (a long-context call costs dollars).
  settle(research.id, "inference", "gpt-4o-mini", 1_284, tokens(1_850, 412, "openai"), "run_lit-review-0412");
  settle(research.id, "inference", "claude-sonnet-4", 1_186_500, tokens(312_000, 16_700, "anthropic"), "run_lit-review-0412");
  settle(sub.id, "inference", "gpt-4o-mini", 64_200, tokens(362_000, 16_500, "openai"), "run_lit-review-0412");
  settle(research.id, "mcp_call", "github", 2_000, { tool: "search_issues", duration_ms: 412 }, "run_lit-review-0412");
  settle(research.id, "sandbox", "python", 312_000, { language: "python", exit_code: 0, duration_ms: 124_800, billed_ms: 124_800, price_micro_usd_per_second: 2_500 });
  settle(evals.id, "inference", "llama-3.3-70b", 421_000, tokens(440_000, 38_300, "together"), "run_nightly-eval-1121");
  settle(evals.id, "inference", "claude-sonnet-4", 2_754_000, tokens(768_000, 30_000, "anthropic"), "run_nightly-eval-1121");
  settle(evals.id, "inference", "gpt-4o", 987_500, tokens(315_000, 20_000, "openai"), "run_nightly-eval-1121");
  settle(ci.id, "sandbox", "node", 450_000, { language: "node", exit_code: 0, duration_ms: 180_000, billed_ms: 180_000, price_micro_usd_per_second: 2_500 });
  settle(ci.id, "sandbox", "bash", 75_000, { language: "bash", exit_code: 1, duration_ms: 30_000, billed_ms: 30_000, price_micro_usd_per_second: 2_500 });
  settle(ci.id, "inference", "gpt-4o-mini", 23_100, tokens(132_000, 5_500, "openai"));
  settle(sub.id, "inference", "gpt-4o-mini", 90_500, tokens(510_000, 23_300, "openai"), "run_lit-review-0413");
  settle(research.id, "inference", "claude-sonnet-4", 2_054_700, tokens(589_900, 18_000, "anthropic"), "run_lit-review-0413");
  settle(research.id, "mcp_call", "linear", 1_000, { tool: "create_issue", duration_ms: 280 }, "run_lit-review-0413");
  // Paused by its owner after the runs above.
  await api("POST", `/v1/keys/${ci.id}/freeze`, { reason: "paused while CI secrets rotate" });

  // Two USDT transfers to the treasury from the signed-in wallet, as a chain node would describe
  // them: one past its confirmations (credited), one still short of them (pending).
  const chain = ctx.config.chains[0]!;
  const transfer = (n: number, amount: bigint, confirmations: number) => {
    const txHash = keccak256(toBytes(`svc docs: deposit ${n}`));
    const inspection: Inspection = {
      chain,
      txHash,
      blockNumber: 22_841_000 + n * 37,
      blockHash: keccak256(toBytes(`svc docs: block ${n}`)),
      confirmations,
      transfers: [{ token: USDT, from: WALLET.address.toLowerCase(), to: TREASURY.toLowerCase(), value: amount, logIndex: 3 + n, position: 0 }],
    };
    recordTransfers(ctx, accountId, inspection, claimableTransfers(ctx, accountId, inspection), "deposit");
  };
  transfer(1, 10_000_000n, 40);
  transfer(2, 5_000_000n, 7);

  // Other people on the deployment, for the operator pages.
  for (const [i, credit, spend] of [
    [1, 40 * USD, 6_312_400],
    [2, 12 * USD, 1_258_900],
    [3, 3 * USD, 0],
  ] as const) {
    const other = createAccount(ctx);
    addWallet(ctx, other.id, privateKeyToAccount(keccak256(toBytes(`svc docs: other wallet ${i}`))).address);
    ctx.ledger.credit(other.id, credit, { type: "deposit" });
    if (spend) settle(null, "inference", "gpt-4o-mini", spend, tokens(spend * 2, Math.round(spend / 4), "openai"), null, other.id);
  }

  // One pass of the webhook jobs: the fan-out queues a delivery per event, and the first
  // attempts meet a closed port, so the deliveries show as retrying with their error.
  await within(30_000, "the webhook jobs", ctx.scheduler.runDue());
}

let code = 0;
try {
  const written = await within(RUN_TIMEOUT_MS, "the screenshots", main());
  console.log(`wrote ${written.length} screenshots to docs/console/: ${written.join(", ")}`);
} catch (err) {
  console.error(`console screenshots failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  code = 1;
} finally {
  cleanUp();
}
process.exit(code);
