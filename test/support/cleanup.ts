/**
 * Loaded before every test file (bunfig.toml preload). Temp dirs and child processes that
 * tests create register here and are removed after the file's tests, even when an assertion
 * failed half-way (bun test does not run process "exit" handlers). Scripts that reuse the test
 * helpers outside `bun test` call runCleanups() when they are done.
 */
import { afterAll } from "bun:test";

const cleanups: (() => void)[] = [];

export function onCleanup(fn: () => void): void {
  cleanups.push(fn);
}

/** Runs every registered clean-up, newest first. */
export function runCleanups(): void {
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      fn();
    } catch {
      // best effort: one failure must not keep the rest from being cleaned up
    }
  }
}

try {
  afterAll(runCleanups);
} catch {
  // Outside `bun test` (the console screenshot script, the console bench): the script calls runCleanups() itself.
}
