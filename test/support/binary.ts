/**
 * The compiled binary for CLI and process tests: built once per test run when dist/svc is
 * missing or older than the sources, then run as a child process.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { livePid } from "../../src/domains/backup/process.ts";
import { onCleanup } from "./cleanup.ts";
import { tempDir } from "./harness.ts";

export const ROOT = join(import.meta.dir, "../..");
export const BINARY = join(ROOT, "dist/svc");

function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of ["src", "cli", "migrations"]) walk(join(ROOT, dir));
  for (const file of ["package.json", "bun.lock"]) newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  return newest;
}

let building: Promise<string> | null = null;

export function svcBinary(): Promise<string> {
  return (building ??= (async () => {
    if (!existsSync(BINARY) || statSync(BINARY).mtimeMs < newestSource()) {
      const proc = Bun.spawn([process.execPath, "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
      const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      if (code !== 0) throw new Error(`bun run build failed: ${err}`);
    }
    return BINARY;
  })());
}

/** An empty directory to use as PATH: proves the binary needs no Bun (or anything else) on PATH. */
export function emptyPath(): string {
  const dir = join(tempDir("svc-nobin"), "bin");
  mkdirSync(dir);
  return dir;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `prefix`: a command that runs the binary (and its arguments) as its last arguments, e.g. in other namespaces. */
export async function runSvc(args: string[], options: { env?: Record<string, string>; cwd?: string; stdin?: string; prefix?: string[] } = {}): Promise<RunResult> {
  const bin = await svcBinary();
  const proc = Bun.spawn([...(options.prefix ?? []), bin, ...args], {
    cwd: options.cwd ?? tempDir("svc-cwd"),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

export async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

export interface Served {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  /** Everything the process wrote to stderr so far (its JSON log lines). */
  log(): string;
  /** SIGTERM, then wait (bounded) for exit; SIGKILL if it does not go. Returns the exit code. */
  stop(): Promise<number>;
}

/**
 * A server a failed assertion left running (its test never reached its own stop) is killed
 * after the file's tests, with the litestream child it recorded.
 */
function killLeftovers(proc: ReturnType<typeof Bun.spawn>, dataDir: string): void {
  // Only the litestream that pid file names for this very data dir (a reused PID is left alone).
  const child = livePid(join(dataDir, "litestream.pid"), dataDir);
  if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  if (child) process.kill(child, "SIGKILL");
}

/**
 * Starts `svc serve` on a free port and waits (bounded) until /healthz answers. `prefix`: as for
 * runSvc; it must exec the binary (stop() signals the process spawned).
 */
export async function serveSvc(dataDir: string, options: { env?: Record<string, string>; port?: number; prefix?: string[] } = {}): Promise<Served> {
  const bin = await svcBinary();
  const port = options.port ?? (await freePort());
  const proc = Bun.spawn([...(options.prefix ?? []), bin, "serve", "--data-dir", dataDir, "--listen", `127.0.0.1:${port}`], {
    cwd: dataDir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  onCleanup(() => killLeftovers(proc, dataDir));
  let stderr = "";
  void (async () => {
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) stderr += new TextDecoder().decode(chunk);
  })();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) throw new Error(`svc serve exited with ${proc.exitCode}: ${stderr}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(500) });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await Bun.sleep(25);
    if (i === 199) {
      proc.kill("SIGKILL");
      throw new Error(`svc serve did not answer /healthz: ${stderr}`);
    }
  }
  return {
    proc,
    url,
    log: () => stderr,
    async stop() {
      proc.kill("SIGTERM");
      const timeout = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      const code = await proc.exited;
      clearTimeout(timeout);
      return code;
    },
  };
}
