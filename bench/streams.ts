#!/usr/bin/env bun
/**
 * What open connections cost svc, through the compiled binary (dist/svc):
 *
 *  1. Idle keep-alive connections: --connections raw sockets, each after one GET /healthz, held
 *     open and silent. svc's RSS (VmRSS) before and with them; the difference per connection.
 *  2. In-flight streams: --connections streamed chat completions at once through svc (every one
 *     authenticated, reserved, forwarded), against a stub upstream that sends each its first
 *     chunk and then holds it. How many reached the upstream and got their first byte, how fast,
 *     and svc's RSS per in-flight stream. Then the stub lets them all finish: every stream must
 *     end, settled and receipted (usage events = receipts, no hold left open).
 *
 * Part 2 is also the check that svc is not capped by the runtime's outbound-request limit
 * (Bun's fetch runs 256 requests at once unless told otherwise; svc serve raises it at start,
 * src/core/outbound-requests.ts). Run it with BUN_CONFIG_MAX_HTTP_REQUESTS=256 in the
 * environment (passed on to svc) to see the runtime's default: only 256 streams get through.
 *
 * The clients are raw TCP sockets speaking HTTP/1.1 by hand, for the reason bench/sse.ts gives
 * (this process's own fetch has the same 256 limit).
 *
 * Usage: bun bench/streams.ts [--connections 2000] [--batch 200] [--settle 3] [--budget 30] [--json]
 * See bench/README.md.
 */
import { join } from "node:path";
import { BODY, prepare, REPLY, STREAM_REPLY } from "./inference.ts";
import { openFilesLimit, procEnv, procStatusKib, servePid } from "./proc.ts";
import { cli, ensureBinary, log, machineInfo, machineLine, meteredAfterRun, now, parseFlags, percentile, runWithServer, sleep, SvcServer, svcVersion } from "./support.ts";
import { connectRaw } from "./raw-socket.ts";
import { Watch } from "./watch.ts";

const STOP_TIMEOUT_MS = 15_000;
/** Descriptors kept back for everything that is not a client (the database, the stub, fetch). */
const FD_RESERVE = 300;
/** The model whose provider allows a call to last: the streams are held open on purpose. */
const HELD_MODEL = "bench-held";

const USAGE = `usage: bun bench/streams.ts [options]

  --connections N     idle connections, then in-flight streams, held at once (default 2000)
  --batch N           connections opened at once before the next batch (default 200)
  --settle SECS       wait before each RSS reading so svc's heap settles (default 3)
  --budget SECS       how long the streams get to reach their first byte (default 30)`;

function parseOptions() {
  const { values, int } = parseFlags(
    {
      connections: { type: "string", default: "2000" },
      batch: { type: "string", default: "200" },
      settle: { type: "string", default: "3" },
      budget: { type: "string", default: "30" },
    },
    USAGE,
  );
  return {
    connections: int("connections", values.connections, 1, 30_000),
    batch: int("batch", values.batch, 1, 5_000),
    settle: int("settle", values.settle, 0, 120),
    budget: int("budget", values.budget, 1, 600),
    json: values.json,
  };
}

// ---------------------------------------------------------------------------------------------
// The stub upstream: a streamed completion's first chunk at once, the rest when released

const [FIRST_EVENT, ...REST_EVENTS] = STREAM_REPLY.split("\n\n").filter(Boolean).map((e) => `${e}\n\n`);
const encoder = new TextEncoder();

class HoldingStub {
  arrived = 0;
  open = 0;
  maxOpen = 0;
  holding = false;
  private gate = Promise.withResolvers<void>();
  private readonly server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0, // a held stream is silent for as long as the bench wants
    fetch: async (req) => {
      const body = (await req.json()) as { stream?: boolean };
      if (!body.stream) return new Response(REPLY, { headers: { "content-type": "application/json" } });
      this.arrived++;
      this.open++;
      this.maxOpen = Math.max(this.maxOpen, this.open);
      const hold = this.holding ? this.gate.promise : null;
      const done = () => {
        this.open--;
      };
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode(FIRST_EVENT));
          if (hold) await hold;
          for (const event of REST_EVENTS) controller.enqueue(encoder.encode(event));
          controller.close();
          done();
        },
        cancel: done,
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    },
  });

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  release(): void {
    this.holding = false;
    this.gate.resolve();
    this.gate = Promise.withResolvers<void>();
  }

  stop(): void {
    this.release();
    this.server.stop(true);
  }
}

// ---------------------------------------------------------------------------------------------
// Clients: one TCP socket each, HTTP/1.1 by hand

interface Client {
  sent: number;
  /** The response's headers said 200. */
  ok: boolean;
  /** performance.now() when the first body byte (an SSE event) arrived. */
  firstByte: number | null;
  /** The chunked body's last chunk arrived: the response is complete, the connection kept. */
  complete: boolean;
  failure: string | null;
  tail: string;
  socket: { end(): void; terminate(): void } | null;
}

const HEAD_END = "\r\n\r\n";
const LAST_CHUNK = "\r\n0\r\n\r\n";

function onData(c: Client, watch: Watch, bytes: Uint8Array): void {
  const at = now();
  const text = c.tail + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  if (!c.ok && !c.failure) {
    const end = text.indexOf(HEAD_END);
    if (end === -1) {
      c.tail = text;
      return;
    }
    if (!text.startsWith("HTTP/1.1 200")) {
      c.failure = text.split("\r\n")[0] ?? "no status line";
      return watch.report();
    }
    c.ok = true;
    if (text.length > end + HEAD_END.length && c.firstByte === null) c.firstByte = at;
  } else if (c.firstByte === null) {
    c.firstByte = at;
  }
  // A stream's chunked body ends with an empty chunk (/healthz's "ok" needs no end: its first byte is all).
  if (text.endsWith(LAST_CHUNK)) c.complete = true;
  c.tail = text.slice(-64);
  watch.report();
}

function connect(host: string, port: number, request: string, watch: Watch): Client {
  const c: Client = { sent: now(), ok: false, firstByte: null, complete: false, failure: null, tail: "", socket: null };
  const gone = (why: string) => {
    if (!c.complete && !c.failure) c.failure = why;
    watch.report();
  };
  connectRaw(host, port, request, {
    opened: (socket) => {
      c.socket = socket;
      c.sent = now();
    },
    data: (bytes) => onData(c, watch, bytes),
    gone,
  });
  return c;
}

/** Opens `count` clients, `batch` at a time, each batch's sockets written before the next opens. */
async function openClients(url: string, request: string, count: number, batch: number, watch: Watch, reached: (c: Client) => boolean, budgetMs: number): Promise<Client[]> {
  const { hostname, port } = new URL(url);
  const clients: Client[] = [];
  const deadline = now() + budgetMs;
  while (clients.length < count) {
    const start = clients.length;
    for (let i = 0; i < Math.min(batch, count - start); i++) clients.push(connect(hostname, Number(port), request, watch));
    // Sent, not answered: a stream past a cap never answers, and must not stop the others opening.
    await watch.until(() => clients.slice(start).every((c) => c.socket !== null || c.failure !== null), Math.max(0, deadline - now()));
  }
  await watch.until(() => clients.every((c) => reached(c) || c.failure !== null), Math.max(0, deadline - now()));
  const failed = clients.filter((c) => c.failure !== null);
  if (failed.length) throw new Error(`${failed.length} of ${count} connections failed; first: ${failed[0]!.failure}`);
  return clients;
}

function closeClients(clients: Client[]): void {
  for (const c of clients) {
    try {
      c.socket?.terminate();
    } catch {
      // already closed
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Main

const round2 = (n: number) => Math.round(n * 100) / 100;

async function main(): Promise<number> {
  const opts = parseOptions();
  const benchLimit = openFilesLimit("self");
  let connections = opts.connections;
  // Each in-flight stream holds a socket here, one in svc towards us, one towards the stub and the stub's own.
  if (2 * connections + FD_RESERVE > benchLimit) {
    connections = Math.max(1, Math.floor((benchLimit - FD_RESERVE) / 2));
    log(`the open-file limit (ulimit -n) is ${benchLimit}: too low for ${opts.connections} streams (two sockets each here); using ${connections}`);
  }
  await ensureBinary();
  const machine = machineInfo(await svcVersion());
  const stub = new HoldingStub();
  const server = new SvcServer("svc-bench-streams-", STOP_TIMEOUT_MS);
  let key = "";
  try {
    key = await prepare(server, stub.url);
    await cli(server.dataDir, ["providers", "add", "held", "--kind", "openai", "--base-url", `${stub.url}/v1`, "--timeout-secs", "3600"]);
    await cli(server.dataDir, ["models", "add", HELD_MODEL, "--provider", "held", "--upstream", "stub-model", "--input-micro-usd-per-mtok", "150000", "--output-micro-usd-per-mtok", "600000", "--max-output", "1024"]);
  } catch (err) {
    console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    await server.stop();
    stub.stop();
    return 1;
  }

  const clients: Client[] = [];
  const outcome = await runWithServer(server, ["--replica", "off"], () => closeClients(clients), async () => {
    const pid = servePid(server);
    const svcLimit = openFilesLimit(pid);
    const host = new URL(server.url).host;
    const healthz = `GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
    const streamBody = JSON.stringify({ ...JSON.parse(BODY), model: HELD_MODEL, stream: true, stream_options: { include_usage: true } });
    const streamRequest = `POST /v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(streamBody)}\r\n\r\n${streamBody}`;
    const watch = new Watch();

    log("warm-up: 20 metered calls and 20 streams, one at a time");
    for (let i = 0; i < 20; i++) {
      const plain = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: BODY });
      await plain.text();
      const streamed = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: streamBody });
      await streamed.text();
      if (plain.status !== 200 || streamed.status !== 200) throw new Error(`warm-up call answered ${plain.status} / ${streamed.status}`);
    }
    await sleep(opts.settle * 1000);
    const rss0 = procStatusKib(pid, "VmRSS");

    log(`${connections} idle keep-alive connections (one GET /healthz each), ${opts.batch} at a time`);
    const idle = await openClients(server.url, healthz, connections, opts.batch, watch, (c) => c.firstByte !== null, opts.budget * 1000);
    clients.push(...idle);
    await sleep(opts.settle * 1000);
    const rssIdle = procStatusKib(pid, "VmRSS");
    closeClients(idle);
    clients.length = 0;
    await sleep(opts.settle * 1000);
    const rssAfterIdle = procStatusKib(pid, "VmRSS");

    log(`${connections} streamed completions at once, held open by the stub after their first chunk`);
    stub.holding = true;
    const arrivedBefore = stub.arrived;
    const t0 = now();
    const streams = await openClients(server.url, streamRequest, connections, opts.batch, watch, (c) => c.firstByte !== null, opts.budget * 1000);
    clients.push(...streams);
    const firstBytes = Float64Array.from(streams.filter((c) => c.firstByte !== null).map((c) => c.firstByte! - c.sent)).sort();
    const got = streams.filter((c) => c.firstByte !== null);
    const allFirstMs = got.length === streams.length ? Math.max(...got.map((c) => c.firstByte!)) - t0 : null;
    await sleep(opts.settle * 1000);
    const rssStreams = procStatusKib(pid, "VmRSS");
    const threads = procStatusKib(pid, "Threads");
    const reachedUpstream = stub.arrived - arrivedBefore;
    const heldAtOnce = stub.maxOpen;

    log(`releasing the ${reachedUpstream} streams the stub holds`);
    const r0 = now();
    stub.release();
    // Those past a cap reach the stub only now, and are no longer held.
    await watch.until(() => streams.every((c) => c.complete || c.failure !== null), opts.budget * 1000);
    const releasedMs = now() - r0;
    const completed = streams.filter((c) => c.complete).length;
    closeClients(streams);
    clients.length = 0;
    const counted = await meteredAfterRun(join(server.dataDir, "svc.db"), "inference");
    await sleep(500);
    return { pid, svcLimit, rss0, rssIdle, rssAfterIdle, rssStreams, threads, firstBytes, allFirstMs, reachedUpstream, heldAtOnce, releasedMs, completed, counted, outbound: procEnv(pid, "BUN_CONFIG_MAX_HTTP_REQUESTS") };
  });
  stub.stop();
  if (!outcome.ok) return outcome.code;
  const r = outcome.value;
  const kibPer = (after: number, before: number) => round2((after - before) / connections);
  const result = {
    machine,
    connections_requested: opts.connections,
    connections,
    open_files_limit: { bench: benchLimit, svc: r.svcLimit },
    svc_outbound_requests: r.outbound,
    svc_rss_kib: { before: r.rss0, idle_connections_open: r.rssIdle, after_closing_them: r.rssAfterIdle, streams_in_flight: r.rssStreams },
    svc_threads_with_streams: r.threads,
    kib_per_idle_connection: kibPer(r.rssIdle, r.rss0),
    kib_per_in_flight_stream: kibPer(r.rssStreams, r.rssAfterIdle),
    streams_reaching_upstream_while_held: r.reachedUpstream,
    streams_held_at_once: r.heldAtOnce,
    streams_with_first_byte: r.firstBytes.length,
    first_byte_ms: { p50: round2(percentile(r.firstBytes, 50)), p99: round2(percentile(r.firstBytes, 99)), max: round2(r.firstBytes.at(-1) ?? Number.NaN), all: r.allFirstMs === null ? null : round2(r.allFirstMs) },
    completed_after_release: r.completed,
    release_to_all_complete_ms: Math.round(r.releasedMs),
    metered: r.counted,
  };
  const allThrough = r.firstBytes.length === connections && r.completed === connections;
  if (opts.json) {
    console.log(JSON.stringify(result, null, 2));
    return allThrough ? 0 : 1;
  }
  const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;
  console.log(`svc connections bench: ${machine.svc_version}`);
  console.log(`machine:     ${machineLine(machine)}`);
  console.log(`clients:     ${connections} raw HTTP/1.1 sockets in this process, opened ${opts.batch} at a time; svc may send ${r.outbound ?? "256 (the runtime's default)"} requests out at once; open files: ${benchLimit} here, ${r.svcLimit} for svc`);
  console.log();
  console.log(`svc RSS, warmed up, nothing open:    ${mib(r.rss0)}`);
  console.log(`  with ${connections} idle keep-alive connections: ${mib(r.rssIdle)}   → ${result.kib_per_idle_connection.toFixed(2)} KiB per idle connection`);
  console.log(`  after closing them:                ${mib(r.rssAfterIdle)}`);
  console.log(`  with ${connections} streams in flight:   ${mib(r.rssStreams)}   → ${result.kib_per_in_flight_stream.toFixed(2)} KiB per in-flight stream (svc threads: ${r.threads})`);
  console.log();
  console.log(`streams that reached the upstream while it held them: ${r.reachedUpstream} of ${connections} (held at once: ${r.heldAtOnce})`);
  console.log(`first byte through svc: ${r.firstBytes.length} of ${connections}; p50 ${result.first_byte_ms.p50} ms, p99 ${result.first_byte_ms.p99} ms, max ${result.first_byte_ms.max} ms${result.first_byte_ms.all === null ? "" : `; all ${result.first_byte_ms.all} ms after the first was sent`}`);
  console.log(`after the release: ${r.completed} of ${connections} complete in ${result.release_to_all_complete_ms} ms`);
  console.log(`metered: ${r.counted.usage_events} usage events, ${r.counted.receipts} receipts (warm-up included), ${r.counted.open_holds} holds open`);
  if (!allThrough) console.log(`\nnot every stream got through while the others were held (an outbound-request limit below ${connections}?)`);
  return allThrough ? 0 : 1;
}

process.exit(await main());
