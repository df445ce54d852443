/**
 * A real headless browser for tests: Debian's chromium (/usr/bin/chromium; test/run.sh installs
 * it) driven by playwright-core. `chromiumPath()` is null where it is missing, and the tests
 * that need it skip with a note.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { onCleanup } from "./cleanup.ts";

export const CHROMIUM = "/usr/bin/chromium";

export const chromiumPath = (): string | null => (existsSync(CHROMIUM) ? CHROMIUM : null);

/** Chromium, headless, no network of its own beyond the pages a test opens; closed after the file's tests. */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  onCleanup(() => void browser.close());
  return browser;
}
