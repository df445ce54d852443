/**
 * Loaded before every test file (bunfig.toml preload). Temp dirs and child processes that
 * tests create register here and are removed after the file's tests, even when an assertion
 * failed half-way (bun test does not run process "exit" handlers).
 */
import { afterAll } from "bun:test";

const cleanups: (() => void)[] = [];

export function onCleanup(fn: () => void): void {
  cleanups.push(fn);
}

afterAll(() => {
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      fn();
    } catch {
      // best effort: one failure must not keep the rest from being cleaned up
    }
  }
});
