/**
 * What every bench needs around its own measurement: option parsing, a current dist/svc, a
 * throwaway svc instance under one temp root, and a clean stop. Each bench keeps only its load
 * generator or prober and its output; keeping the lifecycle here means a fix to the stop or the
 * cleanup reaches every bench at once. See bench/README.md.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism, cpus, release, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { cpuIdleSettings } from "../src/core/cpu-idle.ts";

export const ROOT = resolve(import.meta.dir, "..");
/** Benches always measure the compiled binary, never `bun cli/main.ts`. */
export const BIN = join(ROOT, "dist", "svc");
/** A change in any of these makes dist/svc stale. */
const SOURCE_DIRS = ["src", "cli", "migrations"];
const READY_TIMEOUT_MS = 10_000;
const LITESTREAM_STOP_TIMEOUT_MS = 10_000;

// ---------------------------------------------------------------------------------------------
// Small helpers

/** Progress goes to stderr so that stdout holds only the figures (and stays valid with --json). */
export const log = (msg: string) => console.error(`[bench] ${msg}`);
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const now = () => performance.now();

/** Runs a command to completion and collects its output (cwd: the repo root unless given). */
export async function run(cmd: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}) {
  const proc = Bun.spawn(cmd, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** The environment for svc: ours without any SVC_* (so a stray SVC_CONFIG cannot redirect it). */
export function svcEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  // SVC_SIGN_WORKERS alone is passed on: the knob an A/B of receipt signing threads turns.
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("SVC_") || k === "SVC_SIGN_WORKERS") env[k] = v;
  return { ...env, ...extra };
}

/** One `svc` command on a data dir, through the compiled binary; its stdout, or an error with its output. */
export async function cli(dataDir: string, args: string[]): Promise<string> {
  const r = await run([BIN, ...args, "--data-dir", dataDir], { env: svcEnv({ SVC_LOG_LEVEL: "warn" }) });
  if (r.code !== 0) throw new Error(`svc ${args.join(" ")} failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Signs in with a fresh wallet (SIWE), as a person would; the session token and account id. */
export async function signIn(baseUrl: string): Promise<{ session: string; accountId: string }> {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const site = new URL(baseUrl);
  const { nonce } = (await (await fetch(`${baseUrl}/v1/auth/nonce`, { method: "POST" })).json()) as { nonce: string };
  const message = createSiweMessage({ address: wallet.address, chainId: 1, domain: site.host, nonce, uri: site.origin, version: "1", issuedAt: new Date(), statement: "Sign in to svc" });
  const signedIn = await fetch(`${baseUrl}/v1/auth/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message, signature: await wallet.signMessage({ message }) }) });
  if (signedIn.status !== 200) throw new Error(`sign-in failed: ${signedIn.status} ${await signedIn.text()}`);
  const { token, account_id } = (await signedIn.json()) as { token: string; account_id: string };
  return { session: token, accountId: account_id };
}

/** Milliseconds (or any figure) as the benches print them: three decimals. */
export const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** Nearest-rank percentile of an ascending array; NaN when there are no samples. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Flags every bench has, so they read the same everywhere. */
const COMMON_FLAGS = {
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;
const COMMON_USAGE = `
  --json              print the figures as JSON instead of a table
  -h, --help          this text`;

/**
 * Parses Bun.argv strictly with the bench's own options plus --json and --help. `usage` is the
 * bench's usage text without those two lines. A bad flag exits 2 with the usage, --help prints
 * it and exits 0. `fail` is for the bench's own checks of the values, with the same exit code 2.
 */
export function parseFlags<const O extends NonNullable<ParseArgsConfig["options"]>>(options: O, usage: string) {
  const text = usage + COMMON_USAGE;
  const fail = (msg: string): never => {
    console.error(`${msg}\n\n${text}`);
    process.exit(2);
  };
  let parsed;
  try {
    const all: O & typeof COMMON_FLAGS = { ...options, ...COMMON_FLAGS };
    parsed = parseArgs({ args: Bun.argv.slice(2), options: all, strict: true, allowPositionals: false });
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(text);
    process.exit(0);
  }
  /** A whole-number flag within [min, max], or a usage error naming it. */
  const int = (name: string, raw: string, min: number, max: number): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    return n;
  };
  return { values: parsed.values, fail, int };
}

// ---------------------------------------------------------------------------------------------
// Build and machine

function newestMtime(dir: string): number {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    try {
      newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
    } catch {
      // removed while we looked (someone is editing); ignore
    }
  }
  return newest;
}

/** Rebuilds dist/svc when it is missing or older than the sources, so a bench never measures stale code. */
export async function ensureBinary(): Promise<void> {
  let binMtime = 0;
  try {
    binMtime = statSync(BIN).mtimeMs;
  } catch {
    // missing
  }
  const newestSource = Math.max(...SOURCE_DIRS.map((d) => newestMtime(join(ROOT, d))));
  if (binMtime && binMtime >= newestSource) {
    log(`using ${BIN} (newer than ${SOURCE_DIRS.join("/, ")}/)`);
    return;
  }
  log(binMtime ? `${BIN} is older than the sources; running 'bun run build'` : `${BIN} is missing; running 'bun run build'`);
  const build = await run([process.execPath, "run", "build"]);
  if (build.code !== 0) {
    console.error(build.stdout + build.stderr);
    throw new Error(`'bun run build' failed with exit code ${build.code}`);
  }
}

/** `svc version` of the binary under test, for the header. */
export async function svcVersion(): Promise<string> {
  return (await run([BIN, "version"], { env: svcEnv({}) })).stdout.trim() || "unknown";
}

/** What the figures depend on; printed in every header so runs from different machines are not compared. */
export function machineInfo(svcVersion: string) {
  const cpuList = cpus();
  let nproc: number;
  try {
    nproc = availableParallelism();
  } catch {
    nproc = cpuList.length;
  }
  return {
    nproc,
    cpu_model: cpuList[0]?.model?.trim() ?? "unknown",
    os: `${process.platform}-${process.arch} ${release()}`,
    bun_version: Bun.version,
    svc_version: svcVersion,
    cpu_idle: cpuIdle(),
  };
}

/**
 * How an idle CPU waits, where a VM's guest halt polling says (docs/operations.md#latency-on-a-virtual-machine):
 * at concurrency 1 it moves every latency figure by tenths of a millisecond. null elsewhere.
 */
function cpuIdle(): string | null {
  const { driver, pollNs } = cpuIdleSettings();
  return driver === "haltpoll" && pollNs !== null ? `haltpoll, polls up to ${Math.round(pollNs / 1000)} µs` : null;
}

/** The header's machine line: the same words in every bench. */
export const machineLine = (m: ReturnType<typeof machineInfo>): string =>
  `${m.nproc} CPUs (${m.cpu_model}), ${m.os}, bun ${m.bun_version}${m.cpu_idle ? `, cpu idle: ${m.cpu_idle}` : ""}`;

// ---------------------------------------------------------------------------------------------
// Processes, by PID only: a bench never signals anything it did not start or read from svc's pid file

/** A port the kernel says is free right now (there is a small window before the child binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => (port ? resolvePort(port) : reject(new Error("no port"))));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

/** Alive and not a zombie (a dead child of a dead parent waits a moment for init to reap it). */
function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return !existsSync("/proc/self/stat"); // no procfs: trust kill(pid, 0)
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** A recorded Litestream PID that still runs Litestream (not a PID the kernel has reused). */
const liveLitestream = (pid: number) => isRunning(pid) && commandLine(pid).includes("litestream");

// ---------------------------------------------------------------------------------------------
// The server under test

/**
 * One throwaway `dist/svc serve`. Everything it writes lives under `root` (a fresh temp dir):
 * the data dir is `root/data`, and a bench puts its replica or scratch files beside it, so
 * removing `root` removes all of it. (A data dir made directly by mkdtemp would let svc put its
 * default replica, `<data dir>-replica`, outside anything the bench removes.)
 */
export class SvcServer {
  readonly root: string;
  readonly dataDir: string;
  url = "";
  /** What the run left behind, checked after the stop. */
  leftovers: string[] = [];
  private proc: ReturnType<typeof Bun.spawn> | null = null;
  private stderrTail = "";
  /** Litestream PIDs read from root/data/litestream.pid while svc ran (svc may restart it). */
  private readonly litestream = new Set<number>();
  private stopping: Promise<void> | null = null;

  /** `stopTimeoutMs`: how long svc gets after SIGTERM before SIGKILL. */
  constructor(
    tempPrefix: string,
    private readonly stopTimeoutMs: number,
  ) {
    this.root = mkdtempSync(join(tmpdir(), tempPrefix));
    this.dataDir = join(this.root, "data");
  }

  get exited(): boolean {
    return !this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null;
  }

  get logTail(): string {
    return this.stderrTail;
  }

  get litestreamPids(): number[] {
    return [...this.litestream];
  }

  /**
   * `svc setup --yes` on a free loopback port plus `setupArgs`, then `svc serve` with the public
   * rate limit off (the benches measure the request path, not 429s); resolves once GET /healthz
   * answers "ok".
   */
  async start(setupArgs: string[]): Promise<void> {
    const listen = `127.0.0.1:${await freePort()}`;
    this.url = `http://${listen}`;
    const setup = await run([BIN, "setup", "--yes", "--data-dir", this.dataDir, "--listen", listen, ...setupArgs], { env: svcEnv({ SVC_LOG_LEVEL: "warn" }) });
    if (setup.code !== 0) throw new Error(`svc setup failed (exit ${setup.code}):\n${setup.stdout}${setup.stderr}`);

    if (this.stopping) throw new Error("interrupted before svc serve started");
    this.proc = Bun.spawn([BIN, "serve", "--data-dir", this.dataDir], {
      cwd: this.root,
      env: svcEnv({ SVC_RATE_LIMIT_PER_MINUTE: "0", SVC_LOG_LEVEL: "warn" }),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    log(`started svc serve, pid ${this.proc.pid}, ${this.url}, root dir ${this.root}`);
    void this.drainStderr(this.proc.stderr as ReadableStream<Uint8Array>);

    const deadline = now() + READY_TIMEOUT_MS;
    while (now() < deadline) {
      if (this.exited) throw new Error(`svc serve exited early (code ${this.proc.exitCode}, signal ${this.proc.signalCode}):\n${this.stderrTail}`);
      try {
        const res = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(500) });
        const body = await res.text();
        if (res.ok && body.trim() === "ok") {
          this.noteLitestreamPid();
          return;
        }
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`svc serve did not answer GET /healthz within ${READY_TIMEOUT_MS / 1000} s:\n${this.stderrTail}`);
  }

  /** Remembers the PID in root/data/litestream.pid, if any, so the stop can make sure it is gone. */
  noteLitestreamPid(): void {
    try {
      const pid = Number(readFileSync(join(this.dataDir, "litestream.pid"), "utf8").trim());
      if (Number.isInteger(pid) && pid > 1) this.litestream.add(pid);
    } catch {
      // not there (yet, or any more, or replication is off)
    }
  }

  /** Keeps the last 8 KiB of svc's stderr, to show why it failed to start or died. */
  private async drainStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) this.stderrTail = (this.stderrTail + decoder.decode(chunk, { stream: true })).slice(-8192);
    } catch {
      // stream closed
    }
  }

  /**
   * SIGTERM to svc by PID, SIGKILL if still there after stopTimeoutMs; then makes sure the
   * Litestream PIDs read from litestream.pid are gone too (SIGTERM, then SIGKILL), because a
   * killed svc cannot stop its child. Checks all PIDs, records any that survived in `leftovers`
   * and removes the root dir. Idempotent: every caller (normal end, failure, Ctrl-C) waits for
   * the same stop, so nobody exits before the children are gone.
   */
  stop(): Promise<void> {
    return (this.stopping ??= this.doStop());
  }

  private async doStop(): Promise<void> {
    const proc = this.proc;
    this.noteLitestreamPid();
    if (proc && !this.exited) {
      const t0 = now();
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), sleep(this.stopTimeoutMs).then(() => false)]);
      if (!exited) {
        log(`svc (pid ${proc.pid}) still running ${this.stopTimeoutMs / 1000} s after SIGTERM; sending SIGKILL`);
        proc.kill("SIGKILL");
        await proc.exited;
      } else {
        log(`stopped svc (pid ${proc.pid}) in ${Math.round(now() - t0)} ms, exit code ${proc.exitCode}`);
      }
    }
    for (const pid of this.litestream) await stopOrphanLitestream(pid);
    const pids = [...(proc ? [proc.pid] : []), ...this.litestream];
    this.leftovers = pids.filter(isRunning).map((pid) => `pid ${pid} (${commandLine(pid).trim() || "?"})`);
    if (this.leftovers.length) log(`warning: still running after the stop: ${this.leftovers.join(", ")}`);
    else if (pids.length) log(`checked by PID: svc${this.litestream.size ? " and litestream are" : " is"} gone (${pids.join(", ")})`);
    rmSync(this.root, { recursive: true, force: true });
  }
}

async function stopOrphanLitestream(pid: number): Promise<void> {
  if (!liveLitestream(pid)) return;
  log(`litestream (pid ${pid}) outlived svc; sending SIGTERM`);
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const deadline = now() + LITESTREAM_STOP_TIMEOUT_MS;
  while (now() < deadline && liveLitestream(pid)) await sleep(50);
  if (!liveLitestream(pid)) return;
  log(`litestream (pid ${pid}) still running after SIGTERM; sending SIGKILL`);
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
  await sleep(200);
}

/**
 * Starts `server`, runs the bench's `body` against it and stops it on every path, with the exit
 * codes all benches share: 130 on Ctrl-C or SIGTERM, 1 on a failure or when a process survived
 * the stop. `abort` stops the bench's own load (a wrk child, a writer, a prober) on Ctrl-C and on
 * failure, so nothing keeps running while svc goes away. `body` gets `interrupted()`: once it is
 * true the bench should stop and throw; its error is then not reported as a failure.
 */
export async function runWithServer<T>(
  server: SvcServer,
  setupArgs: string[],
  abort: () => void,
  body: (interrupted: () => boolean) => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; code: number }> {
  let interrupted = false;
  const onSignal = async (signal: string) => {
    interrupted = true;
    log(`${signal}: stopping`);
    abort();
    await server.stop().catch(() => {});
    process.exit(130);
  };
  process.once("SIGINT", () => void onSignal("SIGINT"));
  process.once("SIGTERM", () => void onSignal("SIGTERM"));

  let value: T;
  try {
    await server.start(setupArgs);
    value = await body(() => interrupted);
  } catch (err) {
    if (!interrupted) console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    abort();
    await server.stop();
    return { ok: false, code: interrupted ? 130 : 1 };
  }
  await server.stop();
  if (server.leftovers.length) {
    console.error(`[bench] failed: processes left running: ${server.leftovers.join(", ")}`);
    return { ok: false, code: 1 };
  }
  return { ok: true, value };
}

/**
 * What a run left in svc's database, once the calls still in flight when the load stopped have
 * settled: usage events and receipts of `kind`, and durable holds still open. The three are read
 * in one statement (one snapshot), again every 100 ms until two reads agree (at most 10 s): a
 * reservation kept in memory leaves no row to wait for (docs/money.md), so "no open hold" alone
 * no longer says the calls have finished.
 */
export async function meteredAfterRun(dbPath: string, kind: string): Promise<{ usage_events: number; receipts: number; open_holds: number }> {
  const { Database } = await import("bun:sqlite");
  const db = new Database(dbPath, { readonly: true });
  try {
    const read = () =>
      db
        .query<{ usage_events: number; receipts: number; open_holds: number }, [string, string]>(
          `SELECT (SELECT count(*) FROM usage_events WHERE kind = ?1) AS usage_events, (SELECT count(*) FROM receipts WHERE kind = ?2) AS receipts,
                  (SELECT count(*) FROM holds WHERE status = 'open') AS open_holds`,
        )
        .get(kind, kind)!;
    let last = read();
    for (let waited = 0; waited < 10_000; waited += 100) {
      await sleep(100);
      const next = read();
      if (next.usage_events === last.usage_events && next.receipts === last.receipts && next.open_holds === last.open_holds && next.open_holds === 0) return next;
      last = next;
    }
    return last;
  } finally {
    db.close();
  }
}
