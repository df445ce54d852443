#!/usr/bin/env bun
/**
 * svc beside peer gateways in one run, all pointed at the same local upstream stub: the stub
 * itself ("direct"), svc (the compiled binary; every call reserved, settled and receipted),
 * Portkey's gateway, LiteLLM's proxy and Bifrost. For each: the latency it adds at concurrency 1
 * (its p50/p99 minus direct's), requests per second and p99 at concurrency 16 and 64, errors,
 * the time to the first byte a streamed completion adds (sequential requests), and what a long
 * conversation resent with one message more each call adds (bench/inference.ts's).
 *
 * The stub is bench/inference.ts's (a Bun.serve in this process answering one realistic chat
 * completion with usage). Peers are installed once into a cache dir outside the repository
 * (~/.cache/svc-bench-peers/<peer>, or $SVC_BENCH_PEERS_DIR) and started one at a time on a free
 * 127.0.0.1 port, so they never share the CPU with each other; each is stopped by its PID. A peer
 * that cannot be installed or started is reported as such in the table and the run goes on.
 *
 * Usage: bun bench/peers.ts [--duration 5] [--skip-install] [--peers svc,portkey,litellm,bifrost] [--generator auto|wrk|bun] [--json]
 * See bench/README.md.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { BODY, type Endpoint, LONG_CALLS, longConversation, prepare, REPLY, STREAM_REPLY, STREAM_SAMPLES, streamedBody, streamTtfb } from "./inference.ts";
import { type Measured, type RunFigures, runFetchLoops, runFigures, runWrk, stopWrk } from "./load.ts";
import { bifrost } from "./peers/bifrost.ts";
import type { Installed, PeerGateway } from "./peers/gateway.ts";
import { litellm } from "./peers/litellm.ts";
import { portkey } from "./peers/portkey.ts";
import { ChildProcess, liveProcesses } from "./peers/processes.ts";
import { ensureBinary, freePort, log, machineInfo, machineLine, meteredAfterRun, parseFlags, round3, SvcServer, svcVersion } from "./support.ts";

const WARMUP_SECS = 2;
const CONCURRENCY = [1, 16, 64] as const;
const START_TIMEOUT_MS = 60_000;
const SVC_STOP_TIMEOUT_MS = 10_000;
const GATEWAYS: PeerGateway[] = [portkey, litellm, bifrost];
const SELECTABLE = ["svc", ...GATEWAYS.map((g) => g.name)];

type GeneratorName = "wrk" | "bun";

const USAGE = `usage: bun bench/peers.ts [options]

  --duration SECS     measured seconds per concurrency, after a ${WARMUP_SECS} s warm-up (default 5)
  --skip-install      use the peers already in the cache dir; install nothing
  --peers LIST        comma-separated subset of ${SELECTABLE.join(",")} (default all; direct always runs)
  --cache-dir DIR     where peers are installed (default $SVC_BENCH_PEERS_DIR or ~/.cache/svc-bench-peers)
  --generator NAME    auto (wrk if on PATH, else bun), wrk, or bun (default auto)`;

function parseOptions() {
  const defaultCache = process.env.SVC_BENCH_PEERS_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "svc-bench-peers");
  const { values, fail, int } = parseFlags(
    {
      duration: { type: "string", default: "5" },
      "skip-install": { type: "boolean", default: false },
      peers: { type: "string", default: SELECTABLE.join(",") },
      "cache-dir": { type: "string", default: defaultCache },
      generator: { type: "string", default: "auto" },
    },
    USAGE,
  );
  const peers = values.peers.split(",").map((p) => p.trim()).filter(Boolean);
  const unknown = peers.filter((p) => !SELECTABLE.includes(p));
  if (unknown.length) fail(`--peers: unknown ${unknown.join(", ")} (choose from ${SELECTABLE.join(", ")})`);
  const generator = values.generator;
  if (generator !== "auto" && generator !== "wrk" && generator !== "bun") fail(`--generator must be auto, wrk or bun, got "${generator}"`);
  return {
    duration: int("duration", values.duration, 1, 600),
    skipInstall: values["skip-install"],
    peers: new Set(peers),
    cacheDir: values["cache-dir"],
    generator: generator as "auto" | GeneratorName,
    json: values.json,
  };
}

// ---------------------------------------------------------------------------------------------
// Measuring one target

interface Target extends Endpoint {
  body: string;
}

interface Run extends RunFigures {
  non_2xx: number;
  socket_errors: number;
}

type Status = "measured" | "not installed" | "did not start" | "failed" | "skipped";

interface Row {
  name: string;
  status: Status;
  reason?: string;
  version?: string;
  config?: string;
  runs: Run[];
  added_p50_c1_ms?: number;
  added_p99_c1_ms?: number;
  errors?: number;
  /** A streamed completion's first byte, sequential requests: p50/p99 ms, or why it was not measured. */
  stream_ttfb?: { p50: number; p99: number } | { error: string };
  added_stream_ttfb_p50_ms?: number;
  /** The long conversation: added p50/p99 ms against direct (measured in the same calls), or why not. */
  long?: { added_p50_ms: number; added_p99_ms: number } | { error: string };
}

const oneLine = (text: string, max = 300) => text.replace(/\s+/g, " ").trim().slice(0, max);

/** Same messages and max_tokens for everyone; only the model name differs, as each peer maps it. */
function bodyFor(model: string): string {
  return JSON.stringify({ ...(JSON.parse(BODY) as object), model });
}

function luaScript(path: string, target: Target): string {
  const lines = ['wrk.method = "POST"', `wrk.body = ${JSON.stringify(target.body)}`, ...Object.entries(target.headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)];
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

/** One request before measuring: a 200 carrying a completion with usage, or an error saying what came back. */
async function probe(target: Target): Promise<void> {
  const res = await fetch(target.url, { method: "POST", headers: target.headers, body: target.body, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`the first request answered ${res.status}: ${oneLine(text, 200)}`);
  let reply: { choices?: { message?: { content?: string } }[]; usage?: { total_tokens?: number } };
  try {
    reply = JSON.parse(text);
  } catch {
    throw new Error(`the first request answered 200 but not JSON: ${oneLine(text, 200)}`);
  }
  if (!reply.choices?.[0]?.message?.content || !reply.usage?.total_tokens) throw new Error(`the first request answered 200 without a completion and usage: ${oneLine(text, 200)}`);
}

async function measure(name: string, target: Target, generator: GeneratorName, duration: number, runDir: string, interrupted: () => boolean): Promise<Run[]> {
  const script = generator === "wrk" ? luaScript(join(runDir, `${name}.lua`), target) : undefined;
  const once = (concurrency: number, secs: number): Promise<Measured> =>
    generator === "wrk" ? runWrk(target.url, concurrency, secs, script) : runFetchLoops(() => fetch(target.url, { method: "POST", headers: target.headers, body: target.body }), concurrency, secs);
  const runs: Run[] = [];
  for (const concurrency of CONCURRENCY) {
    if (interrupted()) throw new Error("interrupted");
    log(`${name}, concurrency ${concurrency}: ${WARMUP_SECS} s warm-up, then ${duration} s`);
    await once(concurrency, WARMUP_SECS);
    const r = await once(concurrency, duration);
    runs.push({ ...runFigures(concurrency, r), non_2xx: r.non2xx, socket_errors: r.socketErrors });
  }
  return runs;
}

/** bench/inference.ts's long conversation through `target`, each call beside the same body sent to the stub. */
async function measureLong(name: string, target: Target, model: string, stubUrl: string): Promise<Row["long"]> {
  log(`${name}: a long conversation, ${LONG_CALLS} sequential calls`);
  try {
    const r = await longConversation(target, { url: `${stubUrl}/v1/chat/completions`, headers: { "content-type": "application/json" } }, model);
    return { added_p50_ms: r.added_p50_ms, added_p99_ms: r.added_p99_ms };
  } catch (err) {
    return { error: oneLine((err as Error).message, 200) };
  }
}

/** The same completion streamed: first-byte p50/p99 over sequential requests, or why not (a gateway that does not stream). */
async function measureStream(name: string, target: Target): Promise<Row["stream_ttfb"]> {
  log(`${name}: streamed first byte, ${STREAM_SAMPLES} sequential requests`);
  try {
    const t = await streamTtfb(target.url, target.headers, streamedBody(target.body));
    return { p50: round3(t.p50), p99: round3(t.p99) };
  } catch (err) {
    return { error: oneLine((err as Error).message, 200) };
  }
}

// ---------------------------------------------------------------------------------------------
// The run, and what Ctrl-C must stop

const state: { interrupted: boolean; server: SvcServer | null; stub: ReturnType<typeof Bun.serve> | null; runDir: string | null } = { interrupted: false, server: null, stub: null, runDir: null };
const interrupted = () => state.interrupted;

async function onSignal(signal: string): Promise<void> {
  if (state.interrupted) return;
  state.interrupted = true;
  log(`${signal}: stopping`);
  stopWrk();
  await Promise.all(liveProcesses().map((p) => p.stop()));
  await state.server?.stop().catch(() => {});
  state.stub?.stop(true);
  if (state.runDir) rmSync(state.runDir, { recursive: true, force: true });
  process.exit(130);
}

interface SvcMetered {
  usage_events: number;
  receipts: number;
  open_holds: number;
}

async function runSvc(stubUrl: string, build: { ok: true } | { ok: false; reason: string }, generator: GeneratorName, duration: number, runDir: string): Promise<{ row: Row; metered?: SvcMetered }> {
  const row: Row = { name: "svc", status: "measured", config: "dist/svc: account with credit, API key, the stub as an openai provider, a priced model; breaker, replication and rate limit off", runs: [] };
  if (!build.ok) return { row: { ...row, status: "not installed", reason: build.reason } };
  const server = new SvcServer("svc-bench-peers-", SVC_STOP_TIMEOUT_MS);
  state.server = server;
  try {
    let key: string;
    try {
      key = await prepare(server, stubUrl);
      await server.start(["--replica", "off"]);
      log(`svc answers on ${server.url}`);
    } catch (err) {
      return { row: { ...row, status: "did not start", reason: oneLine(err instanceof Error ? err.message : String(err)) } };
    }
    const target = { url: `${server.url}/v1/chat/completions`, headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: bodyFor("bench-model") };
    try {
      await probe(target);
    } catch (err) {
      return { row: { ...row, status: "did not start", reason: oneLine((err as Error).message) } };
    }
    try {
      row.runs = await measure("svc", target, generator, duration, runDir, interrupted);
      row.stream_ttfb = await measureStream("svc", target);
      row.long = await measureLong("svc", target, "bench-model", stubUrl);
    } catch (err) {
      return { row: { ...row, status: "failed", reason: oneLine((err as Error).message) } };
    }
    // Every answered call is metered: wait for the calls wrk left in flight, then count.
    const metered = await meteredAfterRun(join(server.dataDir, "svc.db"), "inference");
    return { row, metered };
  } finally {
    await server.stop();
    if (server.leftovers.length) log(`warning: still running after the stop: ${server.leftovers.join(", ")}`);
    state.server = null;
  }
}

async function runPeer(gateway: PeerGateway, installed: Installed, stubUrl: string, generator: GeneratorName, duration: number, runDir: string): Promise<Row> {
  const row: Row = { name: gateway.name, status: "measured", config: gateway.describe, runs: [] };
  if (!installed.ok) return { ...row, status: "not installed", reason: installed.reason };
  row.version = installed.version;
  const port = await freePort();
  const launch = gateway.launch(installed, { port, stubUrl, runDir });
  const base = `http://127.0.0.1:${port}`;
  let child: ChildProcess;
  try {
    child = new ChildProcess(gateway.name, launch.cmd, join(runDir, `${gateway.name}.log`), { cwd: launch.cwd ?? runDir, env: launch.env });
  } catch (err) {
    return { ...row, status: "did not start", reason: oneLine((err as Error).message) };
  }
  log(`started ${gateway.name}, pid ${child.pid}, ${base}`);
  try {
    const t0 = performance.now();
    try {
      await child.waitReady(`${base}${launch.readyPath}`, launch.ready, START_TIMEOUT_MS, interrupted);
    } catch (err) {
      return { ...row, status: "did not start", reason: oneLine((err as Error).message) };
    }
    log(`${gateway.name} ready after ${Math.round(performance.now() - t0)} ms`);
    const target = { url: `${base}${launch.chatPath}`, headers: launch.headers, body: bodyFor(launch.model) };
    try {
      await probe(target);
    } catch (err) {
      return { ...row, status: "did not start", reason: oneLine((err as Error).message) };
    }
    try {
      row.runs = await measure(gateway.name, target, generator, duration, runDir, interrupted);
      row.stream_ttfb = await measureStream(gateway.name, target);
      row.long = await measureLong(gateway.name, target, launch.model, stubUrl);
    } catch (err) {
      return { ...row, status: "failed", reason: oneLine((err as Error).message) };
    }
    if (child.exited) return { ...row, status: "failed", reason: `exited during the run (${child.exitDescription}): ${oneLine(child.tail(300))}` };
    return row;
  } finally {
    const left = await child.stop();
    if (left.length) log(`warning: still running after the stop: ${left.join(", ")}`);
    else log(`stopped ${gateway.name} (pid ${child.pid})`);
  }
}

// ---------------------------------------------------------------------------------------------
// Output

function withAdded(row: Row, direct: Row): Row {
  if (row.status !== "measured" || direct.status !== "measured") return row;
  const c1 = row.runs.find((r) => r.concurrency === 1)!;
  const d1 = direct.runs.find((r) => r.concurrency === 1)!;
  const ttfb = row.stream_ttfb && "p50" in row.stream_ttfb && direct.stream_ttfb && "p50" in direct.stream_ttfb ? round3(row.stream_ttfb.p50 - direct.stream_ttfb.p50) : undefined;
  return { ...row, added_p50_c1_ms: round3(c1.p50_ms - d1.p50_ms), added_p99_c1_ms: round3(c1.p99_ms - d1.p99_ms), errors: row.runs.reduce((n, r) => n + r.errors, 0), added_stream_ttfb_p50_ms: ttfb };
}

function printTable(rows: Row[]): void {
  const cols = ["added p50 @1", "added p99 @1", "req/s @16", "p99 @16", "req/s @64", "p99 @64", "errors", "stream TTFB added p50", "long conv. added p50"];
  const widths = cols.map((c) => Math.max(c.length, 9));
  console.log(`${"".padEnd(8)}  ${cols.map((c, i) => c.padStart(widths[i]!)).join("  ")}`);
  for (const row of rows) {
    if (row.status !== "measured") {
      console.log(`${row.name.padEnd(8)}  ${row.status}: ${row.reason ?? ""}`);
      continue;
    }
    const at = (c: number) => row.runs.find((r) => r.concurrency === c)!;
    const isDirect = row.name === "direct";
    const cells = [
      isDirect ? `(${at(1).p50_ms.toFixed(3)})` : row.added_p50_c1_ms!.toFixed(3),
      isDirect ? `(${at(1).p99_ms.toFixed(3)})` : row.added_p99_c1_ms!.toFixed(3),
      String(at(16).requests_per_sec),
      at(16).p99_ms.toFixed(3),
      String(at(64).requests_per_sec),
      at(64).p99_ms.toFixed(3),
      String(row.errors ?? 0),
      isDirect && row.stream_ttfb && "p50" in row.stream_ttfb ? `(${row.stream_ttfb.p50.toFixed(3)})` : row.added_stream_ttfb_p50_ms !== undefined ? row.added_stream_ttfb_p50_ms.toFixed(3) : "n/a",
      isDirect ? "—" : row.long && "added_p50_ms" in row.long ? row.long.added_p50_ms.toFixed(3) : "n/a",
    ];
    console.log(`${row.name.padEnd(8)}  ${cells.map((c, i) => c.padStart(widths[i]!)).join("  ")}`);
  }
  for (const row of rows) if (row.stream_ttfb && "error" in row.stream_ttfb) console.log(`${row.name}: stream TTFB not measured: ${row.stream_ttfb.error}`);
  for (const row of rows) if (row.long && "error" in row.long) console.log(`${row.name}: long conversation not measured: ${row.long.error}`);
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const opts = parseOptions();
  process.once("SIGINT", () => void onSignal("SIGINT"));
  process.once("SIGTERM", () => void onSignal("SIGTERM"));
  const wrkPath = Bun.which("wrk");
  const generator: GeneratorName = opts.generator === "auto" ? (wrkPath ? "wrk" : "bun") : opts.generator;
  if (generator === "wrk" && !wrkPath) {
    console.error("--generator wrk: wrk is not on PATH (Debian: apt-get install -y wrk)");
    return 2;
  }

  let build: { ok: true } | { ok: false; reason: string } = { ok: true };
  if (opts.peers.has("svc")) {
    try {
      await ensureBinary();
    } catch (err) {
      build = { ok: false, reason: oneLine((err as Error).message) };
    }
  }
  const machine = machineInfo(build.ok ? await svcVersion() : "unknown");

  // Installs first and one at a time: they are CPU-heavy and must not overlap a measurement.
  const installs = new Map<string, Installed>();
  for (const gateway of GATEWAYS) {
    if (!opts.peers.has(gateway.name)) continue;
    const dir = join(opts.cacheDir, gateway.name);
    log(`${gateway.name}: ${opts.skipInstall ? "looking in" : "installed once into"} ${dir}`);
    const installed = await gateway.install({ dir, skipInstall: opts.skipInstall, interrupted });
    log(`${gateway.name}: ${installed.ok ? installed.version : `not installed: ${installed.reason}`}`);
    installs.set(gateway.name, installed);
  }

  const runDir = mkdtempSync(join(tmpdir(), "svc-bench-peers-run-"));
  state.runDir = runDir;
  const stub = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) =>
      // Peers re-encode the body their own way (Bifrost indents it): match the field, not one spelling.
      /"stream"\s*:\s*true/.test(await req.text())
        ? new Response(STREAM_REPLY, { headers: { "content-type": "text/event-stream" } })
        : new Response(REPLY, { headers: { "content-type": "application/json" } }),
  });
  state.stub = stub;
  const stubUrl = `http://127.0.0.1:${stub.port}`;

  const rows: Row[] = [];
  let metered: SvcMetered | undefined;
  try {
    const directTarget = { url: `${stubUrl}/v1/chat/completions`, headers: { "content-type": "application/json" }, body: bodyFor("stub-model") };
    const direct: Row = { name: "direct", status: "measured", config: "the stub itself (Bun.serve in the bench process)", runs: [] };
    direct.runs = await measure("direct", directTarget, generator, opts.duration, runDir, interrupted);
    direct.stream_ttfb = await measureStream("direct", directTarget);
    rows.push({ ...direct, errors: direct.runs.reduce((n, r) => n + r.errors, 0) });

    if (opts.peers.has("svc")) {
      const svc = await runSvc(stubUrl, build, generator, opts.duration, runDir);
      rows.push(withAdded(svc.row, direct));
      metered = svc.metered;
    } else rows.push({ name: "svc", status: "skipped", reason: "not in --peers", runs: [] });

    for (const gateway of GATEWAYS) {
      const installed = installs.get(gateway.name);
      if (!installed) {
        rows.push({ name: gateway.name, status: "skipped", reason: "not in --peers", runs: [] });
        continue;
      }
      rows.push(withAdded(await runPeer(gateway, installed, stubUrl, generator, opts.duration, runDir), direct));
    }
  } catch (err) {
    if (!state.interrupted) console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    return state.interrupted ? 130 : 1;
  } finally {
    stub.stop(true);
    state.stub = null;
    rmSync(runDir, { recursive: true, force: true });
    state.runDir = null;
  }

  const generatorNote = generator === "wrk" ? `wrk ${wrkPath} (Lua POST script, keep-alive)` : "bun fetch loops in this process";
  if (opts.json) {
    console.log(JSON.stringify({ machine, generator: generatorNote, duration_secs: opts.duration, warmup_secs: WARMUP_SECS, concurrency: CONCURRENCY, cache_dir: opts.cacheDir, rows, svc_metered: metered ?? null }, null, 2));
    return 0;
  }
  console.log(`svc peers bench: ${machine.svc_version}`);
  console.log(`machine:   ${machineLine(machine)}`);
  console.log(`generator: ${generatorNote}, on the same CPUs; upstream: a Bun.serve stub in the bench process; non-streaming chat completion`);
  console.log(`run:       ${opts.duration} s per concurrency (1, 16, 64) after ${WARMUP_SECS} s warm-up; one gateway at a time`);
  for (const row of rows) if (row.version) console.log(`${`${row.name}:`.padEnd(10)} ${row.version}`);
  console.log();
  printTable(rows);
  console.log();
  console.log("ms; added = the gateway's latency at concurrency 1 minus direct's (in parentheses: direct's own); errors = transport errors + non-2xx over the measured runs;");
  console.log(`stream TTFB = a streamed completion's first body byte, p50 over ${STREAM_SAMPLES} sequential requests (fetch), minus direct's;`);
  console.log(`long conv. = bench/inference.ts's long conversation (~56,000 prompt tokens, one message more each call, ${LONG_CALLS} sequential calls), p50 minus direct's on the same bodies`);
  if (metered) console.log(`svc metered: ${metered.usage_events} usage events, ${metered.receipts} signed receipts (warm-ups included), ${metered.open_holds} holds left open; the peers meter nothing`);
  return 0;
}

process.exit(await main());
