#!/usr/bin/env bun
/**
 * Idle SSE connections on GET /v1/usage/stream, through the compiled binary (dist/svc):
 *
 *  1. Memory: svc's RSS (VmRSS) with no stream open, after a warm-up and a settle, and again with
 *     --connections idle streams held open; the difference per connection in KiB.
 *     Also svc's CPU over one heartbeat period (15 s) without and with the streams.
 *  2. Fan-out: with every stream listening, one metered chat completion at a time through svc;
 *     for each stream, when its `event: usage` frame arrived relative to the arrival of the
 *     call's response (p50/p99/max) and to the sending of the call, how many streams got it,
 *     and the CPU svc and this process spent on it.
 *
 * Setup is bench/inference.ts's (CLI: account, credit, key, stub upstream, priced model). The
 * session the streams present is issued on the data dir before serve starts, with the auth
 * area's own issueSession, because signing in by SIWE would be the only other way.
 *
 * The clients are raw TCP sockets (Bun.connect) speaking HTTP/1.1 by hand: Bun's fetch queues
 * requests past BUN_CONFIG_MAX_HTTP_REQUESTS (256 by default), so it cannot hold thousands of
 * streams open at once, and a socket with a byte scanner costs the bench far less per stream.
 *
 * Usage: bun bench/sse.ts [--connections 10000] [--events 5] [--batch 200] [--settle 5] [--json]
 * See bench/README.md.
 */
import { loadConfig, openContext } from "../src/open.ts";
import { silentLogger } from "../src/core/log.ts";
import { issueSession } from "../src/domains/auth/sessions.ts";
import { HEARTBEAT_MS } from "../src/domains/usage/stream.ts";
import { BODY, prepare, REPLY } from "./inference.ts";
import { cpuMs, openFilesLimit, procStatusKib, servePid } from "./proc.ts";
import { connectRaw } from "./raw-socket.ts";
import { Watch } from "./watch.ts";
import { cli, ensureBinary, log, machineInfo, machineLine, now, parseFlags, percentile, runWithServer, sleep, SvcServer, svcVersion } from "./support.ts";

/** The streams are closed before the stop, but svc may still be tearing thousands of them down. */
const STOP_TIMEOUT_MS = 15_000;
const OPEN_BUDGET_MS = 60_000;
const EVENT_BUDGET_MS = 10_000;
/** File descriptors kept back for everything that is not a stream (the database, the stub, fetch). */
const FD_RESERVE = 200;
const USAGE_MARK = "event: usage";
const CONNECTED_MARK = ": connected";

const USAGE = `usage: bun bench/sse.ts [options]

  --connections N     idle streams to hold open (default 10000)
  --events N          metered calls whose fan-out is measured, one at a time (default 5)
  --batch N           streams opened at once before waiting for them to be live (default 200)
  --settle SECS       wait before each RSS reading so svc's heap settles (default 5)`;

function parseOptions() {
  const { values, int } = parseFlags(
    { connections: { type: "string", default: "10000" }, events: { type: "string", default: "5" }, batch: { type: "string", default: "200" }, settle: { type: "string", default: "5" } },
    USAGE,
  );
  return {
    connections: int("connections", values.connections, 1, 60_000),
    events: int("events", values.events, 1, 20),
    batch: int("batch", values.batch, 1, 5_000),
    settle: int("settle", values.settle, 0, 120),
    json: values.json,
  };
}

// ---------------------------------------------------------------------------------------------
// Stream clients: one TCP socket each, HTTP/1.1 written by hand, the body scanned for marks

interface Stream {
  /** The status line said 200. */
  ok: boolean;
  /** svc sent its first frame, so the stream is subscribed to the account's usage events. */
  live: boolean;
  ended: boolean;
  failure: string | null;
  /** The last bytes seen, so a mark split across two reads is still found. */
  tail: string;
  /** performance.now() of each `event: usage` frame, in arrival order. */
  frames: number[];
  socket: { end(): void; terminate(): void } | null;
}

/**
 * Every stream runs its own heartbeat timer (a frame plus a session check every HEARTBEAT_MS), so
 * once they are open, their heartbeats come in a burst as long as the opening took, once per
 * period. Waits until an event of up to `eventMs` can start and end outside such a burst, so the
 * fan-out figures do not include heartbeat work; false when the bursts leave no such gap.
 */
async function awayFromHeartbeats(opened: { start: number; end: number }, eventMs: number): Promise<boolean> {
  const margin = 1000; // timers fire late on a busy machine, and late timers drift
  const busyUntil = opened.end - opened.start + margin;
  const busyFrom = HEARTBEAT_MS - margin - eventMs;
  if (busyUntil >= busyFrom) return false;
  const phase = (now() - opened.start) % HEARTBEAT_MS;
  if (phase < busyUntil) await sleep(busyUntil - phase);
  else if (phase > busyFrom) await sleep(HEARTBEAT_MS - phase + busyUntil);
  return true;
}

/** What a stream's data handler reports to: the batch waiting for streams to go live, the event waiting for frames. */
class FrameWatch extends Watch {
  liveCount = 0;
  framesWanted = 0;
  framesGot = 0;
}

function countMarks(text: string, mark: string): number {
  let n = 0;
  for (let i = text.indexOf(mark); i !== -1; i = text.indexOf(mark, i + mark.length)) n++;
  return n;
}

function onData(s: Stream, watch: FrameWatch, bytes: Uint8Array): void {
  const at = now();
  const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  if (!s.ok && !s.failure) {
    const head = s.tail + chunk;
    if (head.length < 12) {
      s.tail = head;
      return;
    }
    if (!head.startsWith("HTTP/1.1 200")) {
      s.failure = head.split("\r\n")[0] ?? "no status line";
      return watch.report();
    }
    s.ok = true;
  }
  // The kept tail is shorter than the mark, so a mark found here ends in this read: none counts twice.
  const text = s.tail + chunk;
  if (!s.live && text.includes(CONNECTED_MARK)) {
    s.live = true;
    watch.liveCount++;
  }
  const frames = countMarks(text, USAGE_MARK);
  for (let i = 0; i < frames; i++) {
    s.frames.push(at);
    if (s.frames.length === watch.framesWanted) watch.framesGot++;
  }
  s.tail = text.slice(-(USAGE_MARK.length - 1));
  watch.report();
}

function openStream(host: string, port: number, session: string, watch: FrameWatch): Stream {
  const s: Stream = { ok: false, live: false, ended: false, failure: null, tail: "", frames: [], socket: null };
  const request = `GET /v1/usage/stream HTTP/1.1\r\nHost: ${host}:${port}\r\nAuthorization: Bearer ${session}\r\nAccept: text/event-stream\r\n\r\n`;
  const gone = (why: string) => {
    s.ended = true;
    if (!s.live && !s.failure) s.failure = why;
    watch.report();
  };
  connectRaw(host, port, request, {
    opened: (socket) => {
      s.socket = socket;
    },
    data: (bytes) => onData(s, watch, bytes),
    gone,
  });
  return s;
}

/** Opens `count` streams, `batch` at a time, each batch live (or failed) before the next starts. */
async function openStreams(url: string, session: string, count: number, batch: number, watch: FrameWatch, streams: Stream[]): Promise<{ start: number; end: number }> {
  const { hostname, port } = new URL(url);
  const deadline = now() + OPEN_BUDGET_MS;
  const t0 = now();
  while (streams.length < count && now() < deadline) {
    const start = streams.length;
    for (let i = 0; i < Math.min(batch, count - start); i++) streams.push(openStream(hostname, Number(port), session, watch));
    const group = streams.slice(start);
    await watch.until(() => group.every((s) => s.live || s.failure !== null), deadline - now());
    const failed = group.filter((s) => s.failure !== null);
    if (failed.length) throw new Error(`${failed.length} of ${group.length} streams in a batch failed; first: ${failed[0]!.failure}`);
    if (streams.length % 1000 < batch || streams.length === count) log(`${watch.liveCount} streams live`);
  }
  if (watch.liveCount < count) throw new Error(`only ${watch.liveCount} of ${count} streams were live after ${OPEN_BUDGET_MS / 1000} s`);
  return { start: t0, end: now() };
}

function closeStreams(streams: Stream[]): void {
  for (const s of streams) {
    try {
      s.socket?.terminate();
    } catch {
      // already closed
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Main

interface EventRow {
  event: number;
  received: number;
  of: number;
  /** Request sent to response read, for the metered call that caused the event. */
  call_ms: number;
  /** Frame arrival minus the arrival of the call's response; negative when the frame came first. */
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** CPU time svc (all threads) and this process used from sending the call to the last frame. */
  svc_cpu_ms: number;
  bench_cpu_ms: number;
  /** The event ran clear of the streams' heartbeat bursts. */
  clear_of_heartbeats: boolean;
  /** Frame arrival minus the moment the call was sent: the whole path from cause to every listener. */
  sent_first_ms: number;
  sent_p50_ms: number;
  sent_max_ms: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<number> {
  const opts = parseOptions();
  // svc inherits our limit, so one check covers both ends; svc's own is read again once it runs.
  const benchLimit = openFilesLimit("self");
  let connections = opts.connections;
  if (connections + FD_RESERVE > benchLimit) {
    connections = Math.max(1, benchLimit - FD_RESERVE);
    log(`the open-file limit (ulimit -n) is ${benchLimit}: too low for ${opts.connections} streams plus ${FD_RESERVE} spare; using ${connections}. Raise it (ulimit -n) to measure ${opts.connections}.`);
  }
  await ensureBinary();
  const machine = machineInfo(await svcVersion());

  const stub = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(REPLY, { headers: { "content-type": "application/json" } }) });
  const server = new SvcServer("svc-bench-sse-", STOP_TIMEOUT_MS);
  let key = "";
  let session = "";
  try {
    key = await prepare(server, `http://127.0.0.1:${stub.port}`);
    const accounts = JSON.parse(await cli(server.dataDir, ["accounts", "list", "--json"])) as { id: string }[];
    if (accounts.length !== 1) throw new Error(`expected the one account prepare() created, found ${accounts.length}`);
    // Before serve starts, so no two processes write the database at once.
    const ctx = openContext(loadConfig({ dataDir: server.dataDir }, {}), { log: silentLogger });
    try {
      session = issueSession(ctx, { accountId: accounts[0]!.id, method: "operator" }).token;
    } finally {
      ctx.close();
    }
  } catch (err) {
    console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    await server.stop();
    stub.stop(true);
    return 1;
  }

  const streams: Stream[] = [];
  const watch = new FrameWatch();
  const outcome = await runWithServer(server, ["--replica", "off"], () => closeStreams(streams), async (interrupted) => {
    const pid = servePid(server);
    const svcLimit = openFilesLimit(pid);
    if (connections + FD_RESERVE > svcLimit) throw new Error(`svc serve (pid ${pid}) may open ${svcLimit} files: too few for ${connections} streams`);
    const chat = async () => {
      const t0 = now();
      const res = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: BODY });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`the metered call answered ${res.status}: ${text}`);
      return { sent: t0, arrived: now() };
    };

    // Warm-up: the call path and the stream path run once each before the first reading.
    log("warm-up: 10 metered calls, 100 streams opened and closed");
    const idleCalls: number[] = [];
    const idleCallCpu: number[] = [];
    for (let i = 0; i < 10; i++) {
      const cpu0 = cpuMs(pid);
      const c = await chat();
      if (i >= 5) {
        idleCalls.push(c.arrived - c.sent);
        idleCallCpu.push(cpuMs(pid) - cpu0);
      }
    }
    const warm: Stream[] = [];
    await openStreams(server.url, session, 100, 100, new FrameWatch(), warm);
    closeStreams(warm);
    log(`settling ${opts.settle} s, then svc's CPU over ${HEARTBEAT_MS / 1000} s with no stream open`);
    await sleep(opts.settle * 1000);
    const before = procStatusKib(pid, "VmRSS");
    const benchBefore = procStatusKib("self", "VmRSS");
    const idleCpu0 = cpuMs(pid);
    await sleep(HEARTBEAT_MS);
    const idleCpuBefore = cpuMs(pid) - idleCpu0;

    log(`opening ${connections} streams, ${opts.batch} at a time`);
    const opened = await openStreams(server.url, session, connections, opts.batch, watch, streams);
    log(`settling ${opts.settle} s, then svc's CPU over ${HEARTBEAT_MS / 1000} s (one heartbeat per stream)`);
    await sleep(opts.settle * 1000);
    const after = procStatusKib(pid, "VmRSS");
    const benchAfter = procStatusKib("self", "VmRSS");
    const threads = procStatusKib(pid, "Threads");
    const openCpu0 = cpuMs(pid);
    await sleep(HEARTBEAT_MS);
    const idleCpuAfter = cpuMs(pid) - openCpu0;

    const rows: EventRow[] = [];
    let longest = 1000;
    for (let e = 1; e <= opts.events; e++) {
      if (interrupted()) throw new Error("interrupted");
      const clear = await awayFromHeartbeats(opened, longest);
      const listening = streams.filter((s) => s.live && !s.ended);
      watch.framesWanted = e;
      watch.framesGot = streams.filter((s) => s.frames.length >= e).length;
      const svcCpu0 = cpuMs(pid);
      const benchCpu0 = process.cpuUsage();
      const call = await chat();
      await watch.until(() => watch.framesGot >= listening.length, EVENT_BUDGET_MS);
      const benchCpu = process.cpuUsage(benchCpu0);
      const svcCpu = cpuMs(pid) - svcCpu0;
      const arrivals = Float64Array.from(listening.filter((s) => s.frames.length >= e).map((s) => s.frames[e - 1]!)).sort();
      const from = (t: number) => arrivals.map((a) => a - t);
      const afterResponse = from(call.arrived);
      const afterSent = from(call.sent);
      longest = Math.max(longest, Math.max(call.arrived, arrivals.at(-1) ?? 0) - call.sent);
      rows.push({
        event: e,
        received: arrivals.length,
        of: listening.length,
        call_ms: round2(call.arrived - call.sent),
        p50_ms: round2(percentile(afterResponse, 50)),
        p99_ms: round2(percentile(afterResponse, 99)),
        max_ms: round2(afterResponse.at(-1) ?? Number.NaN),
        svc_cpu_ms: round2(svcCpu),
        bench_cpu_ms: round2((benchCpu.user + benchCpu.system) / 1000),
        clear_of_heartbeats: clear,
        sent_first_ms: round2(afterSent[0] ?? Number.NaN),
        sent_p50_ms: round2(percentile(afterSent, 50)),
        sent_max_ms: round2(afterSent.at(-1) ?? Number.NaN),
      });
      log(`event ${e}: ${arrivals.length}/${listening.length} streams, call ${rows.at(-1)!.call_ms} ms, last frame ${rows.at(-1)!.sent_max_ms} ms after sending, svc CPU ${rows.at(-1)!.svc_cpu_ms} ms`);
      await sleep(500);
    }
    const extra = streams.filter((s) => s.frames.length > opts.events).length;
    const afterEvents = procStatusKib(pid, "VmRSS");
    closeStreams(streams);
    // Let svc see the closes, so its graceful stop has no streams left to wait for.
    await sleep(1000);
    return {
      idleCallMs: median(idleCalls),
      idleCallCpuMs: median(idleCallCpu),
      idleCpuBefore,
      idleCpuAfter,
      pid,
      svcLimit,
      openSecs: (opened.end - opened.start) / 1000,
      before,
      after,
      afterEvents,
      threads,
      benchBefore,
      benchAfter,
      rows,
      extra,
    };
  });
  stub.stop(true);
  if (!outcome.ok) return outcome.code;
  const r = outcome.value;
  const perConnection = round2((r.after - r.before) / connections);
  const med = {
    p50_ms: round2(median(r.rows.map((x) => x.p50_ms))),
    p99_ms: round2(median(r.rows.map((x) => x.p99_ms))),
    max_ms: round2(median(r.rows.map((x) => x.max_ms))),
    call_ms: round2(median(r.rows.map((x) => x.call_ms))),
    sent_p50_ms: round2(median(r.rows.map((x) => x.sent_p50_ms))),
    sent_max_ms: round2(median(r.rows.map((x) => x.sent_max_ms))),
    svc_cpu_ms: round2(median(r.rows.map((x) => x.svc_cpu_ms))),
    bench_cpu_ms: round2(median(r.rows.map((x) => x.bench_cpu_ms))),
  };
  const windowSecs = HEARTBEAT_MS / 1000;
  const idle = {
    window_secs: windowSecs,
    svc_cpu_ms_no_stream_open: round2(r.idleCpuBefore),
    svc_cpu_ms_streams_open: round2(r.idleCpuAfter),
    /** One heartbeat (frame + session check) per stream in the window. */
    us_per_stream_heartbeat: round2(((r.idleCpuAfter - r.idleCpuBefore) * 1000) / connections),
  };
  /** svc's CPU per event beyond a call with no stream open, spread over the streams. */
  const usPerFrame = round2(((med.svc_cpu_ms - r.idleCallCpuMs) * 1000) / connections);
  const allReceived = r.rows.every((x) => x.received === connections && x.of === connections);

  if (opts.json) {
    console.log(
      JSON.stringify(
        {
          machine,
          connections_requested: opts.connections,
          connections,
          open_files_limit: { bench: benchLimit, svc: r.svcLimit },
          open_secs: round2(r.openSecs),
          svc_rss_kib: { before: r.before, after: r.after, after_events: r.afterEvents, per_connection: perConnection },
          svc_threads: r.threads,
          bench_rss_kib: { before: r.benchBefore, after: r.benchAfter },
          call_ms_no_stream_open: round2(r.idleCallMs),
          svc_cpu_ms_per_call_no_stream_open: round2(r.idleCallCpuMs),
          svc_cpu_us_per_frame: usPerFrame,
          idle_cpu: idle,
          events: r.rows,
          median: med,
          every_stream_got_every_event: allReceived,
          streams_with_extra_frames: r.extra,
        },
        null,
        2,
      ),
    );
    return allReceived ? 0 : 1;
  }
  const kib = (n: number) => `${(n / 1024).toFixed(1)} MiB`;
  console.log(`svc SSE bench: ${machine.svc_version}`);
  console.log(`machine:     ${machineLine(machine)}`);
  console.log(`clients:     ${connections} raw HTTP/1.1 sockets in this process on GET /v1/usage/stream (one session), opened ${opts.batch} at a time in ${r.openSecs.toFixed(1)} s`);
  console.log(`open files:  limit ${benchLimit} here, ${r.svcLimit} for svc (pid ${r.pid}); ${connections === opts.connections ? "enough" : `lowered from ${opts.connections}`}`);
  console.log();
  console.log(`svc RSS, no stream open:   ${kib(r.before)}`);
  console.log(`svc RSS, streams open:     ${kib(r.after)}   (after the ${opts.events} events: ${kib(r.afterEvents)}; svc threads: ${r.threads})`);
  console.log(`per idle stream:           ${perConnection.toFixed(2)} KiB   ((after - before) / ${connections})`);
  console.log(`bench process RSS:         ${kib(r.benchBefore)} → ${kib(r.benchAfter)}`);
  const perHeartbeat = idle.us_per_stream_heartbeat > 0 ? `${idle.us_per_stream_heartbeat.toFixed(1)} µs per stream heartbeat` : "no more than svc's background work";
  console.log(`svc CPU over ${windowSecs} s idle:     ${idle.svc_cpu_ms_no_stream_open.toFixed(0)} ms with no stream, ${idle.svc_cpu_ms_streams_open.toFixed(0)} ms with ${connections} (${perHeartbeat})`);
  console.log();
  const cols = ["call ms", "p50", "p99", "max", "first", "p50", "max", "svc CPU", "bench CPU"];
  const width = (i: number) => (i === 0 || i >= 7 ? 9 : 7);
  const line = (head: string, received: string, xs: number[]) => `${head.padStart(6)}  ${received.padStart(11)}  ${xs.map((x, i) => (Number.isNaN(x) ? "" : x.toFixed(i >= 7 ? 0 : 2)).padStart(width(i))).join("  ")}`;
  console.log(`fan-out, ms: the metered call (no stream open: ${r.idleCallMs.toFixed(2)} ms), then each stream's usage frame`);
  console.log(`${"".padStart(6)}  ${"".padStart(11)}  ${"".padStart(9)}  ${"after the response".padEnd(25)}  ${"after the call was sent".padEnd(25)}  CPU ms, call to last frame`);
  console.log(`${"event".padStart(6)}  ${"received".padStart(11)}  ${cols.map((c, i) => c.padStart(width(i))).join("  ")}`);
  for (const x of r.rows) {
    const row = line(String(x.event), `${x.received}/${x.of}`, [x.call_ms, x.p50_ms, x.p99_ms, x.max_ms, x.sent_first_ms, x.sent_p50_ms, x.sent_max_ms, x.svc_cpu_ms, x.bench_cpu_ms]);
    console.log(x.clear_of_heartbeats ? row : `${row}  (during heartbeats)`);
  }
  console.log(line("median", "", [med.call_ms, med.p50_ms, med.p99_ms, med.max_ms, Number.NaN, med.sent_p50_ms, med.sent_max_ms, med.svc_cpu_ms, med.bench_cpu_ms]));
  console.log(`svc CPU per metered call: ${r.idleCallCpuMs.toFixed(2)} ms with no stream open; per usage frame beyond that: ${usPerFrame.toFixed(1)} µs`);
  if (!allReceived) console.log(`\nnot every stream got every event (see the received column)`);
  if (r.extra) console.log(`\n${r.extra} streams got more usage frames than calls were made`);
  return allReceived ? 0 : 1;
}

process.exit(await main());
