/**
 * The web console's first page (docs/console.md): what it weighs over the wire and how long the
 * overview takes to become usable. Prints figures; no thresholds. The targets: ≤ 150 KB gzip for
 * the first load, ≤ 300 ms to interactive for the overview.
 *
 *   bun bench/console.ts [--loads N] [--json]
 *
 * Unlike the other benches this runs svc from the source tree, not dist/svc: the console test
 * helpers (test/support/console.ts: svc on a loopback socket at http://localhost:<port>, loaded
 * here through scripts/console-support.ts) and the headless Chromium the console tests use
 * (/usr/bin/chromium). From source, svc builds the console bundle in memory on the first
 * request; the bench makes that request first (its time is printed) and measures after it.
 *
 * Weight: GET /console/ and the script and stylesheet it names, asking for gzip
 * (Accept-Encoding: gzip, decompression off), counted as served: the body bytes, checked
 * against content-length. svc serves the two files pre-compressed and the small HTML page as
 * is; the page's gzip size is printed beside it for reference. The JSON the page then fetches
 * (session, balance, usage, keys, receipts) is not counted.
 *
 * Time to interactive: one browser context signed in once through the UI (SIWE with a test
 * wallet), so every page of it carries the svc_session cookie. After one warm-up load, N loads
 * of /console/, each in a fresh tab, in two modes: with the browser's HTTP cache (the hashed
 * script and stylesheet come from it, as for a returning visitor) and with the cache disabled
 * through DevTools (every byte fetched, as on a first visit). Two clocks per load:
 * - in page: performance.now() (whose origin is the navigation start) when #spendable is first
 *   in the page and laid out, taken by a MutationObserver installed before any page script;
 * - wall clock: around page.goto + waitForSelector("#spendable", visible) in this process,
 *   which adds Playwright's round trips.
 */
import { cpus } from "node:os";
import type { Page } from "playwright-core";
import { cleanUp, loadConsoleSupport, within } from "../scripts/console-support.ts";
import { log, machineInfo, parseFlags, percentile } from "./support.ts";

const { values, int } = parseFlags(
  { loads: { type: "string", default: "15" } },
  "Usage: bun bench/console.ts [--loads N]\n  --loads N           measured page loads per mode, after one warm-up (default 15)",
);
const loads = int("loads", values.loads, 1, 500);
const STEP_TIMEOUT_MS = 20_000;
const RUN_TIMEOUT_MS = 300_000;
/** Set by the init script: performance.now() when #spendable was first in the page. */
const MARK = "__svcSpendableAt";
/** Runs in every page of the context before its own scripts (a string: this file has no DOM types). */
const SPENDABLE_OBSERVER = `new MutationObserver((_, observer) => {
  const el = document.getElementById("spendable");
  if (el && el.getClientRects().length > 0) {
    globalThis.${MARK} = performance.now();
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true, characterData: true });`;
/** The mark, DOMContentLoaded and the end of the last API response (ms since navigation start). */
const READ_MARKS = `(() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const api = performance.getEntriesByType("resource").filter((e) => e.name.includes("/v1/") || e.name.includes("/console/api/"));
  return {
    inPage: globalThis.${MARK} ?? NaN,
    dcl: nav ? nav.domContentLoadedEventEnd : NaN,
    apiEnd: api.length ? Math.max(...api.map((e) => e.responseEnd)) : NaN,
    apiCalls: api.length,
  };
})()`;

const S = await loadConsoleSupport();

interface Served {
  file: string;
  url: string;
  content_encoding: string;
  served_bytes: number;
  content_length: number | null;
  gzip_bytes_if_compressed: number;
}

interface Timing {
  mode: string;
  clock: string;
  loads: number;
  median_ms: number;
  p90_ms: number;
  min_ms: number;
  max_ms: number;
}

async function served(file: string, url: string): Promise<Served & { text: string }> {
  const res = await fetch(url, { headers: { "accept-encoding": "gzip" }, decompress: false, signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  const body = new Uint8Array(await res.arrayBuffer());
  const encoding = res.headers.get("content-encoding") ?? "identity";
  const length = res.headers.get("content-length");
  if (length !== null && Number(length) !== body.length) throw new Error(`GET ${url}: content-length ${length} but ${body.length} bytes`);
  const plain = encoding === "gzip" ? Bun.gunzipSync(body) : body;
  return {
    file,
    url: new URL(url).pathname,
    content_encoding: encoding,
    served_bytes: body.length,
    content_length: length === null ? null : Number(length),
    gzip_bytes_if_compressed: encoding === "gzip" ? body.length : Bun.gzipSync(plain, { level: 9 }).length,
    text: new TextDecoder().decode(plain),
  };
}

function summary(mode: string, clock: string, samples: number[]): Timing {
  const sorted = Float64Array.from(samples).sort();
  const r = (v: number) => Math.round(v * 10) / 10;
  return { mode, clock, loads: samples.length, median_ms: r(percentile(sorted, 50)), p90_ms: r(percentile(sorted, 90)), min_ms: r(sorted[0]!), max_ms: r(sorted[sorted.length - 1]!) };
}

async function main() {
  if (!S.chromiumPath()) throw new Error(`${S.CHROMIUM} is missing (test/run.sh installs it as root)`);
  const svc = S.serveConsole();
  const overview = `${svc.base}/console/`;

  log("first request: the console bundle is built in memory (source mode)");
  const t0 = performance.now();
  await within(60_000, "the console bundle", fetch(overview).then((r) => r.text()));
  const firstRequestMs = Math.round(performance.now() - t0);

  log("page weight");
  const shell = await served("HTML page", overview);
  const assets = [...shell.text.matchAll(/\/console\/assets\/[^"]+/g)].map((m) => m[0]);
  const script = assets.find((a) => a.endsWith(".js"));
  const style = assets.find((a) => a.endsWith(".css"));
  if (!script || !style) throw new Error(`the page names no script or stylesheet: ${assets.join(", ")}`);
  const files: Served[] = [shell, await served("script", svc.base + script), await served("stylesheet", svc.base + style)].map(({ text: _, ...f }) => f);
  const totalServed = files.reduce((s, f) => s + f.served_bytes, 0);
  const totalGzip = files.reduce((s, f) => s + f.gzip_bytes_if_compressed, 0);

  const browser = await S.launchBrowser();
  try {
    log("signing in once through the UI");
    const c = await S.openConsole(browser, svc.base, S.newWallet());
    c.page.setDefaultTimeout(STEP_TIMEOUT_MS);
    await S.signInWithWallet(c.page);
    await c.page.close();
    await c.context.addInitScript({ content: SPENDABLE_OBSERVER });

    const load = async (cacheDisabled: boolean): Promise<{ inPage: number; wall: number; dcl: number; apiEnd: number; apiCalls: number }> => {
      const page: Page = await c.context.newPage();
      try {
        page.setDefaultTimeout(STEP_TIMEOUT_MS);
        if (cacheDisabled) {
          const cdp = await c.context.newCDPSession(page);
          await cdp.send("Network.enable");
          await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
        }
        const start = performance.now();
        await page.goto(overview, { waitUntil: "commit" });
        await page.waitForSelector("#spendable", { state: "visible" });
        const wall = performance.now() - start;
        const m = (await page.evaluate(READ_MARKS)) as { inPage: number; dcl: number; apiEnd: number; apiCalls: number };
        if (!Number.isFinite(m.inPage)) throw new Error("#spendable appeared but the in-page mark was not set");
        return { ...m, wall };
      } finally {
        await page.close();
      }
    };

    const timings: Timing[] = [];
    const breakdown: { mode: string; dom_content_loaded_median_ms: number; last_api_response_median_ms: number; api_calls: number }[] = [];
    for (const [mode, cacheDisabled] of [
      ["HTTP cache", false],
      ["cache disabled", true],
    ] as const) {
      log(`${mode}: 1 warm-up load, then ${loads}`);
      await load(cacheDisabled);
      const inPage: number[] = [];
      const wall: number[] = [];
      const dcl: number[] = [];
      const apiEnd: number[] = [];
      let apiCalls = 0;
      for (let i = 0; i < loads; i++) {
        const r = await load(cacheDisabled);
        inPage.push(r.inPage);
        wall.push(r.wall);
        dcl.push(r.dcl);
        apiEnd.push(r.apiEnd);
        apiCalls = r.apiCalls;
      }
      timings.push(summary(mode, "in page", inPage), summary(mode, "wall clock", wall));
      breakdown.push({ mode, dom_content_loaded_median_ms: summary(mode, "", dcl).median_ms, last_api_response_median_ms: summary(mode, "", apiEnd).median_ms, api_calls: apiCalls });
    }
    if (c.problems.length) throw new Error(`the console reported problems while measured:\n  ${c.problems.join("\n  ")}`);
    return { firstRequestMs, files, totalServed, totalGzip, timings, breakdown, chromium: browser.version() };
  } finally {
    await within(10_000, "closing the browser", browser.close()).catch((e) => log(String(e)));
  }
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

let code = 0;
try {
  const r = await within(RUN_TIMEOUT_MS, "the console bench", main());
  const machine = { ...machineInfo("source tree"), cores: cpus().length, chromium: r.chromium };
  if (values.json) {
    console.log(JSON.stringify({ machine, first_request_ms: r.firstRequestMs, weight: { files: r.files, total_served_bytes: r.totalServed, total_gzip_bytes: r.totalGzip }, time_to_interactive: r.timings, in_page_breakdown: r.breakdown }, null, 2));
  } else {
    console.log(`svc console bench: ${machine.cores} cores (${machine.cpu_model}), ${machine.os}, bun ${machine.bun_version}, chromium ${machine.chromium}`);
    console.log("svc from the source tree on 127.0.0.1 (test/support/console.ts serveConsole), headless Chromium on the same machine");
    console.log(`first request (bundle built in memory): ${r.firstRequestMs} ms, not counted below`);
    console.log("");
    console.log("first-load weight of /console/ (Accept-Encoding: gzip; bytes as served)   target ≤ 150 KB gzip");
    console.log(`${"file".padEnd(12)}  ${"encoding".padEnd(9)}  ${"served".padStart(10)}  ${"gzip".padStart(10)}  path`);
    for (const f of r.files) console.log(`${f.file.padEnd(12)}  ${f.content_encoding.padEnd(9)}  ${kib(f.served_bytes).padStart(10)}  ${kib(f.gzip_bytes_if_compressed).padStart(10)}  ${f.url}`);
    console.log(`${"total".padEnd(12)}  ${"".padEnd(9)}  ${kib(r.totalServed).padStart(10)}  ${kib(r.totalGzip).padStart(10)}`);
    console.log("(gzip column: the bytes as served when gzipped, else what gzip -9 would make of them)");
    console.log("");
    console.log(`time to interactive of the overview: navigation start → #spendable visible, ${loads} fresh tabs per mode after 1 warm-up   target ≤ 300 ms`);
    console.log("in page: performance.now() in the page when #spendable is laid out; wall clock: around page.goto + waitForSelector");
    console.log(`${"mode".padEnd(15)}  ${"clock".padEnd(10)}  ${"median".padStart(8)}  ${"p90".padStart(8)}  ${"min".padStart(8)}  ${"max".padStart(8)}`);
    for (const t of r.timings) console.log(`${t.mode.padEnd(15)}  ${t.clock.padEnd(10)}  ${`${t.median_ms} ms`.padStart(8)}  ${`${t.p90_ms} ms`.padStart(8)}  ${`${t.min_ms} ms`.padStart(8)}  ${`${t.max_ms} ms`.padStart(8)}`);
    console.log("in page, medians: DOMContentLoaded; the end of the last API response the page fetched (session, balance, usage, keys, receipts)");
    for (const b of r.breakdown) console.log(`${b.mode.padEnd(15)}  DOMContentLoaded ${b.dom_content_loaded_median_ms} ms, last of ${b.api_calls} API responses ${b.last_api_response_median_ms} ms`);
  }
} catch (err) {
  console.error(`console bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  code = 1;
} finally {
  cleanUp();
}
process.exit(code);
