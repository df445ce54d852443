#!/usr/bin/env bun
/**
 * Replication lag of the compiled binary (dist/svc) under a steady write load: for each
 * committed row, the seconds between its commit and the moment a restore from the replica
 * contains it.
 *
 * Sets up a throwaway root dir with a data dir and a local file:// replica, starts
 * `dist/svc serve` (which runs `litestream replicate` as its child), then concurrently
 *   - writes one denylist row per request (POST /v1/admin/denylist) at a steady rate, recording
 *     when each 201 arrived, and
 *   - restores the replica to a temp file every few hundred ms (`litestream restore`), noting
 *     which rows each restore holds for the first time and when that restore started.
 * It prints the lag percentiles, stops svc and its Litestream by PID, and removes the root dir.
 * It only reports numbers: no thresholds, no pass/fail.
 *
 * Usage: bun bench/replication.ts [--rate 20] [--duration 30] [--probe-ms 250] [--json]
 * See bench/README.md.
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism, cpus, release, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const ROOT = resolve(import.meta.dir, "..");
const BIN = join(ROOT, "dist", "svc");
const SOURCE_DIRS = ["src", "cli", "migrations"];
const READY_TIMEOUT_MS = 10_000;
/** How long to wait for the replica's first backup before the writer starts. */
const FIRST_BACKUP_TIMEOUT_MS = 15_000;
/** After the writer stops, keep probing at most this long for rows not seen yet. */
const DRAIN_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const LITESTREAM_STOP_TIMEOUT_MS = 10_000;
const RESTORE_TIMEOUT_MS = 30_000;
const WRITE_TIMEOUT_MS = 10_000;
/** Requests in flight at once; when svc falls this far behind, the writer waits (the achieved rate drops). */
const MAX_IN_FLIGHT = 256;

// ---------------------------------------------------------------------------------------------
// Arguments

function usage(): string {
  return `usage: bun bench/replication.ts [options]

  --rate N            writes per second (default 20)
  --duration SECS     seconds of writing (default 30)
  --probe-ms MS       start a restore from the replica every MS milliseconds (default 250)
  --json              print the figures as JSON instead of a table
  -h, --help          this text`;
}

function parseOptions() {
  let parsed;
  try {
    parsed = parseArgs({
      args: Bun.argv.slice(2),
      options: {
        rate: { type: "string", default: "20" },
        duration: { type: "string", default: "30" },
        "probe-ms": { type: "string", default: "250" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n\n${usage()}`);
    process.exit(2);
  }
  const { values } = parsed;
  if (values.help) {
    console.log(usage());
    process.exit(0);
  }
  const rate = Number(values.rate);
  const duration = Number(values.duration);
  const probeMs = Number(values["probe-ms"]);
  const fail = (msg: string): never => {
    console.error(`${msg}\n\n${usage()}`);
    process.exit(2);
  };
  if (!Number.isFinite(rate) || rate <= 0 || rate > 5000) fail(`--rate must be a number of writes per second above 0 and up to 5000, got "${values.rate}"`);
  if (!Number.isInteger(duration) || duration < 1 || duration > 3600) fail(`--duration must be whole seconds from 1 to 3600, got "${values.duration}"`);
  if (!Number.isInteger(probeMs) || probeMs < 10 || probeMs > 60_000) fail(`--probe-ms must be whole milliseconds from 10 to 60000, got "${values["probe-ms"]}"`);
  return { rate, duration, probeMs, json: values.json };
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const log = (msg: string) => console.error(`[bench] ${msg}`);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const now = () => performance.now();

async function run(cmd: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}) {
  const proc = Bun.spawn(cmd, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

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

/** A port the kernel says is free right now (there is a small window before svc binds it). */
function freePort(): Promise<number> {
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

/** The environment for svc: ours without any SVC_* (so a stray SVC_CONFIG cannot redirect it). */
function svcEnv(extra: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("SVC_")) env[k] = v;
  return { ...env, ...extra };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length); // nearest-rank
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
}

/** Rounded to `digits` decimals; NaN (no samples) becomes null so JSON stays valid. */
function round(n: number, digits = 3): number | null {
  if (!Number.isFinite(n)) return null;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

const randomHex64 = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");

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

// ---------------------------------------------------------------------------------------------
// Build

async function ensureBinary(): Promise<void> {
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

// ---------------------------------------------------------------------------------------------
// The server under test, with its Litestream child

class Server {
  private proc: ReturnType<typeof Bun.spawn> | null = null;
  private stderrTail = "";
  /** Litestream PIDs read from ROOT/data/litestream.pid while svc ran (svc may restart it). */
  private readonly litestreamPids = new Set<number>();
  readonly root = mkdtempSync(join(tmpdir(), "svc-bench-repl-"));
  readonly dataDir = join(this.root, "data");
  readonly replicaDir = join(this.root, "replica");
  readonly replicaUrl = `file://${this.replicaDir}`;
  readonly adminToken = `svcadm_bench_${randomHex64().slice(0, 32)}`;
  url = "";
  /** What the run left behind, checked after the stop. */
  leftovers: string[] = [];

  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  get exited(): boolean {
    return !this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null;
  }

  async start(): Promise<void> {
    const port = await freePort();
    const listen = `127.0.0.1:${port}`;
    this.url = `http://${listen}`;
    const env = svcEnv({ SVC_LOG_LEVEL: "warn" });
    const setup = await run(
      [BIN, "setup", "--yes", "--data-dir", this.dataDir, "--listen", listen, "--admin-token", this.adminToken, "--replica", this.replicaUrl],
      { env },
    );
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
          if (this.litestreamPids.size) log(`svc's litestream runs as pid ${[...this.litestreamPids].join(", ")}`);
          else log("warning: no litestream.pid in the data dir; svc may not be replicating");
          return;
        }
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`svc serve did not answer GET /healthz within ${READY_TIMEOUT_MS / 1000} s:\n${this.stderrTail}`);
  }

  /** Remembers the PID in ROOT/data/litestream.pid, if any. */
  noteLitestreamPid(): void {
    try {
      const pid = Number(readFileSync(join(this.dataDir, "litestream.pid"), "utf8").trim());
      if (Number.isInteger(pid) && pid > 1) this.litestreamPids.add(pid);
    } catch {
      // not there (yet, or any more)
    }
  }

  /** A recorded Litestream PID that still runs Litestream (not a reused PID). */
  private liveLitestream(pid: number): boolean {
    return isRunning(pid) && commandLine(pid).includes("litestream");
  }

  private async drainStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) this.stderrTail = (this.stderrTail + decoder.decode(chunk, { stream: true })).slice(-8192);
    } catch {
      // stream closed
    }
  }

  private stopping: Promise<void> | null = null;

  /**
   * SIGTERM to svc by PID, SIGKILL if still there after STOP_TIMEOUT_MS; then makes sure the
   * Litestream PIDs it read from litestream.pid are gone (SIGTERM, then SIGKILL), and removes
   * the root dir. Idempotent: every caller waits for the same stop.
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
      const exited = await Promise.race([proc.exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
      if (!exited) {
        log(`svc (pid ${proc.pid}) still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM; sending SIGKILL`);
        proc.kill("SIGKILL");
        await proc.exited;
      } else {
        log(`stopped svc (pid ${proc.pid}) in ${Math.round(now() - t0)} ms, exit code ${proc.exitCode}`);
      }
    }
    for (const pid of this.litestreamPids) {
      if (!this.liveLitestream(pid)) continue;
      log(`litestream (pid ${pid}) outlived svc; sending SIGTERM`);
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        continue;
      }
      const deadline = now() + LITESTREAM_STOP_TIMEOUT_MS;
      while (now() < deadline && this.liveLitestream(pid)) await sleep(50);
      if (this.liveLitestream(pid)) {
        log(`litestream (pid ${pid}) still running after SIGTERM; sending SIGKILL`);
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone meanwhile
        }
        await sleep(200);
      }
    }
    const pids = [...(proc ? [proc.pid] : []), ...this.litestreamPids];
    this.leftovers = pids.filter(isRunning).map((pid) => `pid ${pid} (${commandLine(pid).trim() || "?"})`);
    if (this.leftovers.length) log(`warning: still running after the stop: ${this.leftovers.join(", ")}`);
    else if (pids.length) log(`checked by PID: svc and litestream are gone (${pids.join(", ")})`);
    rmSync(this.root, { recursive: true, force: true });
  }

  get logTail(): string {
    return this.stderrTail;
  }
}

// ---------------------------------------------------------------------------------------------
// Writer and prober

interface WriterResult {
  /** sha256 → performance.now() when its 201 arrived. */
  commits: Map<string, number>;
  sent: number;
  errors: number;
  /** Non-201 answers by status, transport errors as "error". */
  errorKinds: Record<string, number>;
  /** Response times of the 201s, ms. */
  responseMs: number[];
  startedAt: number;
  firstCommitAt: number;
  lastCommitAt: number;
}

class Writer {
  readonly commits = new Map<string, number>();
  private readonly responseMs: number[] = [];
  private readonly errorKinds: Record<string, number> = {};
  private errors = 0;
  private sent = 0;
  private aborted = false;
  finishedAt: number | null = null;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly rate: number,
    private readonly durationSecs: number,
  ) {}

  abort(): void {
    this.aborted = true;
  }

  private async writeOne(sha256: string): Promise<void> {
    const t0 = now();
    try {
      const res = await fetch(`${this.url}/v1/admin/denylist`, {
        method: "POST",
        headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json" },
        body: JSON.stringify({ sha256, reason: "bench" }),
        signal: AbortSignal.timeout(WRITE_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      const t1 = now();
      if (res.status === 201) {
        this.commits.set(sha256, t1);
        this.responseMs.push(t1 - t0);
      } else {
        this.errors++;
        this.errorKinds[String(res.status)] = (this.errorKinds[String(res.status)] ?? 0) + 1;
      }
    } catch {
      this.errors++;
      this.errorKinds.error = (this.errorKinds.error ?? 0) + 1;
    }
  }

  /** Open loop: request i is sent at start + i / rate, without waiting for the ones before it. */
  async run(): Promise<WriterResult> {
    const total = Math.max(1, Math.round(this.rate * this.durationSecs));
    const intervalMs = 1000 / this.rate;
    const inFlight = new Set<Promise<void>>();
    const startedAt = now();
    for (let i = 0; i < total && !this.aborted; i++) {
      const due = startedAt + i * intervalMs;
      const wait = due - now();
      if (wait > 1) await sleep(wait);
      while (inFlight.size >= MAX_IN_FLIGHT && !this.aborted) await Promise.race(inFlight);
      if (this.aborted) break;
      const p = this.writeOne(randomHex64()).finally(() => inFlight.delete(p));
      inFlight.add(p);
      this.sent++;
    }
    await Promise.all(inFlight);
    this.finishedAt = now();
    let firstCommitAt = Number.POSITIVE_INFINITY;
    let lastCommitAt = startedAt;
    for (const t of this.commits.values()) {
      firstCommitAt = Math.min(firstCommitAt, t);
      lastCommitAt = Math.max(lastCommitAt, t);
    }
    return {
      commits: this.commits,
      sent: this.sent,
      errors: this.errors,
      errorKinds: this.errorKinds,
      responseMs: this.responseMs,
      startedAt,
      firstCommitAt,
      lastCommitAt,
    };
  }
}

interface ProbeResult {
  /** sha256 → performance.now() when the first restore that held it started. */
  seen: Map<string, number>;
  probes: number;
  failed: number;
  firstFailure: string | null;
  restoreMs: number[];
  /** Gaps between consecutive restore starts, ms. */
  gapsMs: number[];
}

class Prober {
  readonly seen = new Map<string, number>();
  private readonly restoreMs: number[] = [];
  private readonly gapsMs: number[] = [];
  private probes = 0;
  private failed = 0;
  private firstFailure: string | null = null;
  private aborted = false;
  private active: ReturnType<typeof Bun.spawn> | null = null;
  private readonly out: string;

  constructor(
    private readonly litestream: string,
    private readonly replicaUrl: string,
    private readonly probeDir: string,
    private readonly intervalMs: number,
  ) {
    mkdirSync(probeDir, { recursive: true });
    this.out = join(probeDir, "restore.db");
  }

  abort(): void {
    this.aborted = true;
    this.active?.kill("SIGKILL");
  }

  /** One `litestream restore` into the temp file; its sha256 values, or an error message. */
  async restoreOnce(): Promise<{ ok: true; rows: string[] } | { ok: false; error: string }> {
    for (const suffix of ["", "-wal", "-shm", ".tmp"]) rmSync(this.out + suffix, { force: true });
    const proc = Bun.spawn([this.litestream, "restore", "-o", this.out, this.replicaUrl], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    this.active = proc;
    const timer = setTimeout(() => proc.kill("SIGKILL"), RESTORE_TIMEOUT_MS);
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    this.active = null;
    if (code !== 0 || !existsSync(this.out)) {
      const text = (stderr + stdout).trim().split("\n").filter(Boolean).at(-1) ?? `exit code ${code}`;
      return { ok: false, error: code !== 0 ? text : `restore exited 0 but wrote no file: ${text}` };
    }
    let db: Database | null = null;
    try {
      db = new Database(this.out, { readonly: true });
      const rows = db.query<{ sha256: string }, []>("SELECT sha256 FROM denylist").all().map((r) => r.sha256);
      return { ok: true, rows };
    } catch (err) {
      return { ok: false, error: `reading the restored database: ${err instanceof Error ? err.message : String(err)}` };
    } finally {
      db?.close();
    }
  }

  /** Waits (bounded) until the replica holds a first backup that restores, so probing starts from a working replica. */
  async waitForFirstBackup(timeoutMs: number): Promise<void> {
    const deadline = now() + timeoutMs;
    let last = "";
    while (now() < deadline && !this.aborted) {
      const r = await this.restoreOnce();
      if (r.ok) return;
      last = r.error;
      await sleep(200);
    }
    if (this.aborted) throw new Error("interrupted");
    throw new Error(`no restorable backup in the replica after ${timeoutMs / 1000} s: ${last}`);
  }

  /**
   * Restores every `intervalMs` (the next one starts right away when a restore overran) until
   * `done()` says so or the run is aborted. Every row is tracked, including one whose 201 is
   * still on its way (only the bench writes to the denylist of this throwaway instance).
   */
  async run(done: () => boolean): Promise<ProbeResult> {
    let prevStart: number | null = null;
    let next = now();
    while (!this.aborted && !done()) {
      const wait = next - now();
      if (wait > 0) await sleep(wait);
      if (this.aborted) break;
      const start = now();
      if (prevStart !== null) this.gapsMs.push(start - prevStart);
      prevStart = start;
      next = start + this.intervalMs;
      const r = await this.restoreOnce();
      if (this.aborted) break;
      this.probes++;
      if (!r.ok) {
        this.failed++;
        if (!this.firstFailure) {
          this.firstFailure = r.error;
          log(`warning: a restore failed (counted, probing goes on): ${r.error}`);
        }
        continue;
      }
      this.restoreMs.push(now() - start);
      for (const sha of r.rows) if (!this.seen.has(sha)) this.seen.set(sha, start);
    }
    for (const suffix of ["", "-wal", "-shm", ".tmp"]) rmSync(this.out + suffix, { force: true });
    return {
      seen: this.seen,
      probes: this.probes,
      failed: this.failed,
      firstFailure: this.firstFailure,
      restoreMs: this.restoreMs,
      gapsMs: this.gapsMs,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Output

function machineInfo(svcVersion: string, litestreamVersion: string, litestreamPath: string) {
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
    litestream_version: litestreamVersion,
    litestream_path: litestreamPath,
  };
}

/** backup.sync_interval_secs and backup.litestream from the svc.toml setup wrote (svc's defaults when absent). */
function readSvcToml(dataDir: string): { syncIntervalSecs: number; litestream: string } {
  let backup: { sync_interval_secs?: unknown; litestream?: unknown } = {};
  try {
    const doc = Bun.TOML.parse(readFileSync(join(dataDir, "svc.toml"), "utf8")) as { backup?: typeof backup };
    backup = doc.backup ?? {};
  } catch (err) {
    log(`warning: cannot read svc.toml (${err instanceof Error ? err.message : String(err)}); assuming the defaults`);
  }
  return {
    syncIntervalSecs: typeof backup.sync_interval_secs === "number" ? backup.sync_interval_secs : 1,
    litestream: typeof backup.litestream === "string" && backup.litestream ? backup.litestream : "litestream",
  };
}

/** Litestream's WAL monitor interval from the litestream.yml svc generated, when it says. */
function readMonitorInterval(dataDir: string): string | null {
  try {
    const doc = Bun.YAML.parse(readFileSync(join(dataDir, "litestream.yml"), "utf8")) as { dbs?: { "monitor-interval"?: unknown }[] };
    const v = doc.dbs?.[0]?.["monitor-interval"];
    return typeof v === "string" ? v : null;
  } catch {
    return null;
  }
}

function resolveProgram(name: string): string | null {
  if (name.includes("/")) return existsSync(name) ? name : null;
  return Bun.which(name);
}

function table(rows: [string, string][]): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  const v = Math.max(...rows.map(([, val]) => val.length));
  return [`${"figure".padEnd(w)}  ${"value".padStart(v)}`, `${"-".repeat(w)}  ${"-".repeat(v)}`, ...rows.map(([k, val]) => `${k.padEnd(w)}  ${val.padStart(v)}`)].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const opts = parseOptions();

  const litestreamOnPath = Bun.which("litestream");
  if (!litestreamOnPath) {
    console.error("[bench] litestream is not on PATH; install.sh installs the pinned v0.5.18 (/usr/local/bin/litestream)");
    return 1;
  }

  await ensureBinary();
  const versionOut = await run([BIN, "version"], { env: svcEnv({}) });
  const svcVersion = versionOut.stdout.trim() || "unknown";

  const server = new Server();
  let writer: Writer | null = null;
  let prober: Prober | null = null;
  let interrupted = false;
  const cleanup = async (signal: string) => {
    interrupted = true;
    log(`${signal}: stopping`);
    writer?.abort();
    prober?.abort();
    await server.stop().catch(() => {});
    process.exit(130);
  };
  process.once("SIGINT", () => void cleanup("SIGINT"));
  process.once("SIGTERM", () => void cleanup("SIGTERM"));

  let figures;
  try {
    await server.start();
    const toml = readSvcToml(server.dataDir);
    const litestreamPath = resolveProgram(toml.litestream) ?? litestreamOnPath;
    const lsVersion = (await run([litestreamPath, "version"])).stdout.trim() || "unknown";
    const monitorInterval = readMonitorInterval(server.dataDir);
    const machine = machineInfo(svcVersion, lsVersion, litestreamPath);

    prober = new Prober(litestreamPath, server.replicaUrl, join(server.root, "probe"), opts.probeMs);
    log("waiting for the replica's first backup");
    await prober.waitForFirstBackup(FIRST_BACKUP_TIMEOUT_MS);

    log(`writing ${opts.rate}/s for ${opts.duration} s while restoring the replica every ${opts.probeMs} ms`);
    writer = new Writer(server.url, server.adminToken, opts.rate, opts.duration);
    const w = writer;
    let writerDone = false;
    let drainStartedAt = 0;
    let svcDied = false;
    const done = () => {
      if (server.exited) {
        svcDied = true;
        w.abort();
        return true;
      }
      if (!writerDone) return false;
      if (now() - drainStartedAt > DRAIN_TIMEOUT_MS) return true;
      for (const sha of w.commits.keys()) if (!prober!.seen.has(sha)) return false;
      return true;
    };
    const probing = prober.run(done);
    const wr = await w.run();
    writerDone = true;
    drainStartedAt = now();
    if (!interrupted) log(`writer done: ${wr.commits.size} rows committed; probing until the replica holds all of them (at most ${DRAIN_TIMEOUT_MS / 1000} s)`);
    const pr = await probing;
    const drainMs = now() - drainStartedAt;
    if (interrupted) {
      await server.stop();
      return 130;
    }
    if (svcDied) throw new Error(`svc serve exited during the run:\n${server.logTail}`);
    if (wr.commits.size === 0) throw new Error(`no write was committed (${wr.errors} errors: ${JSON.stringify(wr.errorKinds)})`);

    server.noteLitestreamPid();
    let replication: unknown = null;
    try {
      const res = await fetch(`${server.url}/v1/status`, { signal: AbortSignal.timeout(5000) });
      replication = ((await res.json()) as { replication?: unknown }).replication ?? null;
    } catch (err) {
      log(`warning: GET /v1/status failed: ${err instanceof Error ? err.message : String(err)}`);
    }

    const lagsList: number[] = [];
    let neverSeen = 0;
    for (const [sha, committedAt] of wr.commits) {
      const seenAt = pr.seen.get(sha);
      if (seenAt === undefined) neverSeen++;
      else lagsList.push((seenAt - committedAt) / 1000);
    }
    const lags = Float64Array.from(lagsList).sort();
    // Commits per second between the first and the last 201 (n rows span n − 1 intervals).
    const commitSpanSecs = (wr.lastCommitAt - wr.firstCommitAt) / 1000;
    const achievedRate = wr.commits.size > 1 && commitSpanSecs > 0 ? (wr.commits.size - 1) / commitSpanSecs : Number.NaN;
    const sortedResp = Float64Array.from(wr.responseMs).sort();
    figures = {
      machine,
      litestream: {
        sync_interval_secs: toml.syncIntervalSecs,
        monitor_interval: monitorInterval,
        replica: "file:// (local directory, same disk)",
      },
      target_rate_per_sec: opts.rate,
      duration_secs: opts.duration,
      probe_interval_ms: opts.probeMs,
      rows: wr.commits.size,
      rows_seen: lags.length,
      rows_never_seen: neverSeen,
      writes_sent: wr.sent,
      write_errors: wr.errors,
      write_error_kinds: wr.errorKinds,
      write_rate_per_sec: round(achievedRate, 1),
      write_response_p50_ms: round(percentile(sortedResp, 50), 2),
      write_response_p99_ms: round(percentile(sortedResp, 99), 2),
      write_response_max_ms: round(sortedResp.length ? sortedResp[sortedResp.length - 1]! : Number.NaN, 2),
      lag_p50_secs: round(percentile(lags, 50)),
      lag_p90_secs: round(percentile(lags, 90)),
      lag_p99_secs: round(percentile(lags, 99)),
      lag_max_secs: round(lags.length ? lags[lags.length - 1]! : Number.NaN),
      lag_min_secs: round(lags.length ? lags[0]! : Number.NaN),
      probes: pr.probes,
      probes_failed: pr.failed,
      probe_first_failure: pr.firstFailure,
      probe_gap_mean_ms: round(mean(pr.gapsMs), 1),
      probe_gap_max_ms: round(pr.gapsMs.length ? Math.max(...pr.gapsMs) : Number.NaN, 1),
      restore_mean_ms: round(mean(pr.restoreMs), 1),
      restore_max_ms: round(pr.restoreMs.length ? Math.max(...pr.restoreMs) : Number.NaN, 1),
      drain_secs: round(drainMs / 1000, 2),
      status_replication: replication,
    };
  } catch (err) {
    if (!interrupted) console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    writer?.abort();
    prober?.abort();
    await server.stop();
    return interrupted ? 130 : 1;
  }
  await server.stop();
  if (server.leftovers.length) {
    console.error(`[bench] failed: processes left running: ${server.leftovers.join(", ")}`);
    return 1;
  }

  const f = figures;
  const explanation =
    `lag = start of the first restore from the replica that holds the row − arrival of the row's 201: how long a committed row is missing from the replica ` +
    `(what a crash at that moment would lose). It overstates the true lag by at most one probe gap (max ${f.probe_gap_max_ms} ms here) ` +
    `and understates it by at most one restore plus one write response (max ${f.restore_max_ms} ms + ${f.write_response_max_ms} ms here).`;

  if (opts.json) {
    console.log(JSON.stringify({ ...f, note: explanation }, null, 2));
    return 0;
  }
  const s = (n: number | null, unit = "") => (n === null ? "n/a" : `${n}${unit}`);
  console.log(`svc replication lag bench: ${f.machine.svc_version}`);
  console.log(`machine:    ${f.machine.nproc} CPUs (${f.machine.cpu_model}), ${f.machine.os}, bun ${f.machine.bun_version}`);
  console.log(
    `litestream: ${f.machine.litestream_version} (${f.machine.litestream_path}), sync interval ${f.litestream.sync_interval_secs} s (backup.sync_interval_secs)` +
      `${f.litestream.monitor_interval ? `, monitor interval ${f.litestream.monitor_interval}` : ""}, replica ${f.litestream.replica}`,
  );
  console.log(`load:       POST /v1/admin/denylist, target ${f.target_rate_per_sec}/s for ${f.duration_secs} s, public rate limit off`);
  console.log(`probe:      litestream restore + read every ${f.probe_interval_ms} ms, same machine`);
  console.log();
  console.log(
    table([
      ["rows committed (201)", String(f.rows)],
      ["write rate achieved", `${f.write_rate_per_sec === null ? "n/a" : f.write_rate_per_sec.toFixed(1)}/s`],
      ["write errors", `${f.write_errors}${f.write_errors ? ` ${JSON.stringify(f.write_error_kinds)}` : ""}`],
      ["write response p50 / p99 / max", `${s(f.write_response_p50_ms)} / ${s(f.write_response_p99_ms)} / ${s(f.write_response_max_ms)} ms`],
      ["lag p50", s(f.lag_p50_secs, " s")],
      ["lag p90", s(f.lag_p90_secs, " s")],
      ["lag p99", s(f.lag_p99_secs, " s")],
      ["lag max", s(f.lag_max_secs, " s")],
      ["rows never seen", `${f.rows_never_seen}${f.rows_never_seen ? ` (gave up ${DRAIN_TIMEOUT_MS / 1000} s after the writer stopped)` : ""}`],
      ["probe resolution (gap mean / max)", `${s(f.probe_gap_mean_ms)} / ${s(f.probe_gap_max_ms)} ms`],
      ["restore duration (mean / max)", `${s(f.restore_mean_ms)} / ${s(f.restore_max_ms)} ms`],
      ["restores (failed)", `${f.probes} (${f.probes_failed})`],
    ]),
  );
  console.log();
  console.log(`/v1/status replication at the end: ${JSON.stringify(f.status_replication)}`);
  if (f.probe_first_failure) console.log(`first failed restore: ${f.probe_first_failure}`);
  console.log();
  console.log(explanation);
  return 0;
}

process.exit(await main());
