/**
 * A real sandbox runner for tests: its own workspace root and staging dir under a temp dir,
 * closed and removed after the file's tests (tmpfs workspaces unmounted first, so nothing
 * stays mounted when a test failed half-way).
 */
import { afterAll } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRunner, type Runner, type RunnerOptions } from "../../src/domains/sandboxes/runner/index.ts";
import { onCleanup } from "./cleanup.ts";

/**
 * A temp dir the sandbox uid can pass through (0711): a root gateway's bwrap runs as that uid
 * and must reach the workspaces it binds.
 */
export function sandboxTempDir(label = "svc-sandbox-test"): string {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  chmodSync(dir, 0o711);
  onCleanup(() => {
    unmountBelow(dir);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Unmounts every mount under `dir`, deepest first (leftover tmpfs workspaces). */
export function unmountBelow(dir: string): void {
  const points = readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .filter((p) => p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const p of points) Bun.spawnSync(["umount", p], { env: {} });
}

/** A runner for this test file; call at the top level of the file (it registers afterAll). */
export function sandboxRunner(options: Partial<RunnerOptions> = {}): { ready: Promise<Runner>; root: string } {
  const root = sandboxTempDir();
  const ready = createRunner({ workspaceRoot: join(root, "workspaces"), stagingDir: join(root, "staging"), ...options });
  afterAll(async () => {
    await (await ready).close();
  });
  return { ready, root };
}

/** A plain directory workspace (quota watched, not a tmpfs) under the runner's workspace root. */
export function plainWorkspace(root: string, name: string): string {
  const dir = join(root, "workspaces", name);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

export const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
