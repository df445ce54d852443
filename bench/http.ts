#!/usr/bin/env bun
/**
 * HTTP throughput and latency of the compiled binary (dist/svc) on three routes:
 *   GET /healthz    liveness, plain text "ok", no guard
 *   GET /           banner JSON, public route through the rate-limit guard
 *   GET /v1/status  public JSON route that reads SQLite
 *
 * Sets up a throwaway data dir, starts `dist/svc serve` on a free loopback port with the public
 * rate limit disabled, loads each route with wrk (when on PATH) or a Bun fetch loop, prints
 * the figures and stops the server again. It only reports numbers: no thresholds, no pass/fail.
 *
 * Usage: bun bench/http.ts [--concurrency 32] [--duration 5] [--generator auto|wrk|bun] [--json]
 * See bench/README.md.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism, cpus, release, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const ROOT = resolve(import.meta.dir, "..");
const BIN = join(ROOT, "dist", "svc");
const SOURCE_DIRS = ["src", "cli", "migrations"];
const ROUTES = [
  { path: "/healthz", what: "liveness, text 'ok'" },
  { path: "/", what: "banner JSON, public guard" },
  { path: "/v1/status", what: "public JSON, reads SQLite" },
] as const;
const WARMUP_SECS = 1;
const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;

type GeneratorName = "wrk" | "bun";

interface RouteResult {
  route: string;
  generator: GeneratorName;
  concurrency: number;
  duration_secs: number;
  requests: number;
  requests_per_sec: number;
  p50_ms: number;
  p99_ms: number;
  /** Transport errors plus non-2xx answers (wrk: socket errors plus status >= 400). */
  errors: number;
  non_2xx: number;
  socket_errors: number;
}

// ---------------------------------------------------------------------------------------------
// Arguments

function usage(): string {
  return `usage: bun bench/http.ts [options]

  --concurrency N     concurrent connections / request loops (default 32)
  --duration SECS     measured seconds per route, after a ${WARMUP_SECS} s warm-up (default 5)
  --generator NAME    auto (wrk if on PATH, else bun), wrk, or bun (default auto)
  --json              print the figures as JSON instead of a table
  -h, --help          this text`;
}

function parseOptions() {
  let parsed;
  try {
    parsed = parseArgs({
      args: Bun.argv.slice(2),
      options: {
        concurrency: { type: "string", default: "32" },
        duration: { type: "string", default: "5" },
        generator: { type: "string", default: "auto" },
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
  const concurrency = Number(values.concurrency);
  const duration = Number(values.duration);
  const generator = values.generator;
  const fail = (msg: string): never => {
    console.error(`${msg}\n\n${usage()}`);
    process.exit(2);
  };
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10_000) fail(`--concurrency must be an integer from 1 to 10000, got "${values.concurrency}"`);
  if (!Number.isInteger(duration) || duration < 1 || duration > 3600) fail(`--duration must be whole seconds from 1 to 3600, got "${values.duration}"`);
  if (generator !== "auto" && generator !== "wrk" && generator !== "bun") fail(`--generator must be auto, wrk or bun, got "${generator}"`);
  return { concurrency, duration, generator: generator as "auto" | GeneratorName, json: values.json };
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const log = (msg: string) => console.error(`[bench] ${msg}`);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

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
// The server under test

class Server {
  private proc: ReturnType<typeof Bun.spawn> | null = null;
  private stderrTail = "";
  readonly dataDir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  url = "";

  async start(): Promise<void> {
    const port = await freePort();
    const listen = `127.0.0.1:${port}`;
    this.url = `http://${listen}`;
    const env = svcEnv({ SVC_LOG_LEVEL: "warn" });
    const setup = await run([BIN, "setup", "--yes", "--data-dir", this.dataDir, "--listen", listen], { env });
    if (setup.code !== 0) throw new Error(`svc setup failed (exit ${setup.code}):\n${setup.stdout}${setup.stderr}`);

    if (this.stopping) throw new Error("interrupted before svc serve started");
    this.proc = Bun.spawn([BIN, "serve", "--data-dir", this.dataDir], {
      cwd: this.dataDir,
      env: svcEnv({ SVC_RATE_LIMIT_PER_MINUTE: "0", SVC_LOG_LEVEL: "warn" }),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    log(`started svc serve, pid ${this.proc.pid}, ${this.url}, data dir ${this.dataDir}`);
    void this.drainStderr(this.proc.stderr as ReadableStream<Uint8Array>);

    const deadline = performance.now() + READY_TIMEOUT_MS;
    while (performance.now() < deadline) {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
        throw new Error(`svc serve exited early (code ${this.proc.exitCode}, signal ${this.proc.signalCode}):\n${this.stderrTail}`);
      }
      try {
        const res = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(500) });
        const body = await res.text();
        if (res.ok && body.trim() === "ok") return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`svc serve did not answer GET /healthz within ${READY_TIMEOUT_MS / 1000} s:\n${this.stderrTail}`);
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
   * SIGTERM by PID, SIGKILL if still there after STOP_TIMEOUT_MS; then removes the data dir.
   * Idempotent: every caller waits for the same stop, so nobody exits before the child is gone.
   */
  stop(): Promise<void> {
    return (this.stopping ??= this.doStop());
  }

  private async doStop(): Promise<void> {
    const proc = this.proc;
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      const t0 = performance.now();
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
      if (!exited) {
        log(`svc (pid ${proc.pid}) still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM; sending SIGKILL`);
        proc.kill("SIGKILL");
        await proc.exited;
      } else {
        log(`stopped svc (pid ${proc.pid}) in ${Math.round(performance.now() - t0)} ms, exit code ${proc.exitCode}`);
      }
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  get logTail(): string {
    return this.stderrTail;
  }
}

// ---------------------------------------------------------------------------------------------
// Load generators

let activeWrk: ReturnType<typeof Bun.spawn> | null = null;

/** "512.34us" / "1.50ms" / "2.00s" / "1.00m" → milliseconds. */
function wrkTimeMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(text.trim());
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  const scale: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return n * scale[m[2]!]!;
}

function parseWrk(out: string) {
  const num = (re: RegExp) => {
    const m = re.exec(out);
    return m ? Number(m[1]) : 0;
  };
  const p = (pct: string) => {
    const m = new RegExp(`^\\s*${pct}%\\s+(\\S+)`, "m").exec(out);
    return m ? wrkTimeMs(m[1]!) : Number.NaN;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1, 5).reduce((a, b) => a + Number(b), 0) : 0;
  const requests = num(/(\d+) requests in/);
  const rps = num(/Requests\/sec:\s+([\d.]+)/);
  if (!requests || !rps) throw new Error(`could not parse wrk output:\n${out}`);
  const non2xx = num(/Non-2xx or 3xx responses: (\d+)/);
  return { requests, rps, p50: p("50"), p99: p("99"), non2xx, socketErrors };
}

async function wrkRun(url: string, concurrency: number, secs: number) {
  const threads = Math.min(2, concurrency);
  const proc = Bun.spawn(["wrk", `-t${threads}`, `-c${concurrency}`, `-d${secs}s`, "--latency", url], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  activeWrk = proc;
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  activeWrk = null;
  if (code !== 0) throw new Error(`wrk exited with code ${code}:\n${stdout}${stderr}`);
  return parseWrk(stdout);
}

/** Keep-alive fetch loops in this process; returns per-request latencies in ms. */
async function bunRun(url: string, concurrency: number, secs: number) {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let non2xx = 0;
  let socketErrors = 0;
  const start = performance.now();
  const deadline = start + secs * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const res = await fetch(url);
        await res.arrayBuffer();
        if (res.status < 200 || res.status > 299) non2xx++;
      } catch {
        socketErrors++;
        continue;
      }
      const dt = performance.now() - t0;
      if (count === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[count++] = dt;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - start) / 1000;
  const sorted = latencies.subarray(0, count).sort();
  return { requests: count, rps: count / elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99), non2xx, socketErrors };
}

async function measure(generator: GeneratorName, url: string, concurrency: number, secs: number) {
  return generator === "wrk" ? wrkRun(url, concurrency, secs) : bunRun(url, concurrency, secs);
}

// ---------------------------------------------------------------------------------------------
// Output

function machineInfo(svcVersion: string) {
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
  };
}

function table(results: RouteResult[]): string {
  const head = ["route", "generator", "concurrency", "req/s", "p50 ms", "p99 ms", "errors"];
  const rows = results.map((r) => [
    `GET ${r.route}`,
    r.generator,
    String(r.concurrency),
    r.requests_per_sec.toFixed(0),
    r.p50_ms.toFixed(3),
    r.p99_ms.toFixed(3),
    String(r.errors),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const fmt = (row: string[]) => row.map((c, i) => (i === 0 || i === 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [fmt(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(fmt)].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const opts = parseOptions();
  const wrkPath = Bun.which("wrk");
  let generator: GeneratorName;
  if (opts.generator === "auto") generator = wrkPath ? "wrk" : "bun";
  else generator = opts.generator;
  if (generator === "wrk" && !wrkPath) {
    console.error("--generator wrk: wrk is not on PATH (Debian: apt-get install -y wrk)");
    return 2;
  }

  await ensureBinary();
  const versionOut = await run([BIN, "version"], { env: svcEnv({}) });
  const svcVersion = versionOut.stdout.trim() || "unknown";
  const machine = machineInfo(svcVersion);
  const generatorNote =
    generator === "wrk"
      ? `wrk ${wrkPath} (-t${Math.min(2, opts.concurrency)} -c${opts.concurrency}, keep-alive)`
      : `bun fetch fallback (${opts.concurrency} keep-alive loops in this process)${wrkPath ? "" : "; install wrk for a lighter generator"}`;
  const cpuNote = `the load generator runs on the same machine as svc (${machine.nproc} CPUs)${
    machine.nproc <= 2 ? ": on a 2-core machine the generator competes with the server for CPU, so these figures understate what svc does alone" : " and takes CPU from it"
  }`;
  log(`generator: ${generatorNote}`);

  const server = new Server();
  let interrupted = false;
  const cleanup = async (signal: string) => {
    interrupted = true;
    log(`${signal}: stopping`);
    activeWrk?.kill("SIGTERM");
    await server.stop().catch(() => {});
    process.exit(130);
  };
  process.once("SIGINT", () => void cleanup("SIGINT"));
  process.once("SIGTERM", () => void cleanup("SIGTERM"));

  const results: RouteResult[] = [];
  try {
    await server.start();
    for (const route of ROUTES) {
      const url = `${server.url}${route.path}`;
      const probe = await fetch(url);
      await probe.arrayBuffer();
      if (!probe.ok) log(`warning: GET ${route.path} answers ${probe.status} before the run; those count as errors`);
      log(`GET ${route.path}: ${WARMUP_SECS} s warm-up, then ${opts.duration} s at concurrency ${opts.concurrency}`);
      await measure(generator, url, opts.concurrency, WARMUP_SECS);
      const r = await measure(generator, url, opts.concurrency, opts.duration);
      results.push({
        route: route.path,
        generator,
        concurrency: opts.concurrency,
        duration_secs: opts.duration,
        requests: r.requests,
        requests_per_sec: Math.round(r.rps * 10) / 10,
        p50_ms: Math.round(r.p50 * 1000) / 1000,
        p99_ms: Math.round(r.p99 * 1000) / 1000,
        errors: r.non2xx + r.socketErrors,
        non_2xx: r.non2xx,
        socket_errors: r.socketErrors,
      });
    }
  } catch (err) {
    if (!interrupted) console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    await server.stop();
    return interrupted ? 130 : 1;
  }
  await server.stop();

  if (opts.json) {
    console.log(
      JSON.stringify(
        {
          machine,
          generator,
          generator_detail: generatorNote,
          concurrency: opts.concurrency,
          duration_secs: opts.duration,
          warmup_secs: WARMUP_SECS,
          note: cpuNote,
          results,
        },
        null,
        2,
      ),
    );
  } else {
    console.log(`svc HTTP bench: ${machine.svc_version}`);
    console.log(`machine:   ${machine.nproc} CPUs (${machine.cpu_model}), ${machine.os}, bun ${machine.bun_version}`);
    console.log(`generator: ${generatorNote}`);
    console.log(`run:       ${opts.duration} s per route after ${WARMUP_SECS} s warm-up, public rate limit off`);
    console.log();
    console.log(table(results));
    console.log();
    console.log(`errors = transport errors + ${generator === "wrk" ? "status >= 400 (as wrk counts them)" : "non-2xx answers"}`);
    console.log(`note: ${cpuNote}.`);
  }
  return 0;
}

process.exit(await main());
