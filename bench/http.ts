#!/usr/bin/env bun
/**
 * HTTP throughput and latency of the compiled binary (dist/svc) on three routes:
 *   GET /healthz    liveness, plain text "ok", no guard
 *   GET /           banner JSON, public route through the rate-limit guard
 *   GET /v1/status  public JSON route that reads SQLite
 *
 * Sets up a throwaway data dir (replication off), starts `dist/svc serve` on a free loopback port
 * with the public rate limit disabled, loads each route with wrk (when on PATH) or a Bun fetch loop, prints
 * the figures and stops the server again. It only reports numbers: no thresholds, no pass/fail.
 *
 * Usage: bun bench/http.ts [--concurrency 32] [--duration 5] [--generator auto|wrk|bun] [--json]
 * See bench/README.md.
 */
import { ensureBinary, log, machineInfo, parseFlags, percentile, runWithServer, SvcServer, svcVersion } from "./support.ts";

const ROUTES = [
  { path: "/healthz", what: "liveness, text 'ok'" },
  { path: "/", what: "banner JSON, public guard" },
  { path: "/v1/status", what: "public JSON, reads SQLite" },
] as const;
const WARMUP_SECS = 1;
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

const USAGE = `usage: bun bench/http.ts [options]

  --concurrency N     concurrent connections / request loops (default 32)
  --duration SECS     measured seconds per route, after a ${WARMUP_SECS} s warm-up (default 5)
  --generator NAME    auto (wrk if on PATH, else bun), wrk, or bun (default auto)`;

function parseOptions() {
  const { values, fail } = parseFlags(
    {
      concurrency: { type: "string", default: "32" },
      duration: { type: "string", default: "5" },
      generator: { type: "string", default: "auto" },
    },
    USAGE,
  );
  const concurrency = Number(values.concurrency);
  const duration = Number(values.duration);
  const generator = values.generator;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10_000) fail(`--concurrency must be an integer from 1 to 10000, got "${values.concurrency}"`);
  if (!Number.isInteger(duration) || duration < 1 || duration > 3600) fail(`--duration must be whole seconds from 1 to 3600, got "${values.duration}"`);
  if (generator !== "auto" && generator !== "wrk" && generator !== "bun") fail(`--generator must be auto, wrk or bun, got "${generator}"`);
  return { concurrency, duration, generator: generator as "auto" | GeneratorName, json: values.json };
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
  const machine = machineInfo(await svcVersion());
  const generatorNote =
    generator === "wrk"
      ? `wrk ${wrkPath} (-t${Math.min(2, opts.concurrency)} -c${opts.concurrency}, keep-alive)`
      : `bun fetch fallback (${opts.concurrency} keep-alive loops in this process)${wrkPath ? "" : "; install wrk for a lighter generator"}`;
  const cpuNote = `the load generator runs on the same machine as svc (${machine.nproc} CPUs)${
    machine.nproc <= 2 ? ": on a 2-core machine the generator competes with the server for CPU, so these figures understate what svc does alone" : " and takes CPU from it"
  }`;
  log(`generator: ${generatorNote}`);

  // Replication off: this bench measures the gateway's HTTP path, and a Litestream child would
  // only take CPU from it (and put a replica on disk).
  const server = new SvcServer("svc-bench-", STOP_TIMEOUT_MS);
  const outcome = await runWithServer(server, ["--replica", "off"], () => activeWrk?.kill("SIGTERM"), async () => {
    const results: RouteResult[] = [];
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
    return results;
  });
  if (!outcome.ok) return outcome.code;
  const results = outcome.value;

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
