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
import { runFetchLoops, runWrk, stopWrk } from "./load.ts";
import { ensureBinary, log, machineInfo, machineLine, parseFlags, runWithServer, SvcServer, svcVersion } from "./support.ts";

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

async function measure(generator: GeneratorName, url: string, concurrency: number, secs: number) {
  return generator === "wrk" ? runWrk(url, concurrency, secs) : runFetchLoops(() => fetch(url), concurrency, secs);
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
  const outcome = await runWithServer(server, ["--replica", "off"], stopWrk, async () => {
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
    console.log(`machine:   ${machineLine(machine)}`);
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
