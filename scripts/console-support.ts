/**
 * The console test helpers (test/support/console.ts, browser.ts, harness.ts, siwe.ts,
 * fixtures.ts) for scripts run with plain `bun`, outside `bun test`: the screenshot script
 * (scripts/console-screenshots.ts) and the console bench (bench/console.ts).
 *
 * Those helpers register their clean-ups through test/support/cleanup.ts; outside the test
 * runner nothing runs them after the fact, so the script calls cleanUp() when it is done.
 */

import { runCleanups } from "../test/support/cleanup.ts";

/** The helpers the screenshot script and the bench drive the console with. */
export async function loadConsoleSupport() {
  const [consoleSupport, browser, harness, siwe, fixtures] = await Promise.all([
    import("../test/support/console.ts"),
    import("../test/support/browser.ts"),
    import("../test/support/harness.ts"),
    import("../test/support/siwe.ts"),
    import("../test/support/fixtures.ts"),
  ]);
  return { ...consoleSupport, ...browser, ...harness, ...siwe, ...fixtures };
}

/** Runs every clean-up the helpers registered (servers, browser contexts, temp dirs), newest first. */
export const cleanUp = runCleanups;

/** Rejects after `ms` with a message naming what was being waited for. */
export async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
