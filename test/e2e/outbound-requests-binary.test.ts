/**
 * How many upstream calls `svc serve` holds open at once, through the compiled binary as users
 * run it. Bun's fetch sends at most BUN_CONFIG_MAX_HTTP_REQUESTS requests at a time (256 when
 * unset) and queues the rest, silently; svc serve starts over as itself with the variable set
 * (src/core/outbound-requests.ts). Here a stand-in OpenAI upstream in this process answers
 * every streamed chat completion with a first chunk at once and the rest only when the test
 * opens a gate, so every call holds its upstream request until then:
 *
 * - unset: 300 streamed calls through svc all reach the upstream before any of them ends (more
 *   than Bun's 256), then all finish, each with its receipt, metered in the database; the
 *   serving log line names the limit, and the very process we started (same PID, same
 *   arguments) runs with the variable set;
 * - an operator's BUN_CONFIG_MAX_HTTP_REQUESTS=40 is kept: of 60 calls, 40 reach the upstream
 *   while the rest wait in svc, and all 60 finish once the gate opens.
 *
 * The clients are raw sockets speaking HTTP/1.1 by hand: this process's own fetch is capped at
 * 256 as well.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeConfigFile } from "../../src/config.ts";
import { BUN_DEFAULT_OUTBOUND, hardOpenFilesLimit, OUTBOUND_ENV, outboundLimitFor } from "../../src/core/outbound-requests.ts";
import { BINARY, runSvc, type Served, serveSvc, svcBinary } from "../support/binary.ts";
import { tempDir } from "../support/harness.ts";

const MODEL = "outbound-model";
/** More than Bun's default of 256. */
const CALLS = 300;
const OPERATOR_LIMIT = 40;
const OPERATOR_CALLS = 60;
const WAIT_MS = 30_000;
const PROMPT_TOKENS = 1000;
const COMPLETION_TOKENS = 500;
const REQUEST_BODY = JSON.stringify({
  model: MODEL,
  messages: [{ role: "user", content: "Write until the gate opens." }],
  max_tokens: 1024,
  stream: true,
  stream_options: { include_usage: true },
});

/** This process's hard open-files limit; svc serve, its child, inherits it. */
const HARD_OPEN_FILES = hardOpenFilesLimit(readFileSync("/proc/self/limits", "utf8"));
const DEFAULT_LIMIT = outboundLimitFor(HARD_OPEN_FILES);

// ---------------------------------------------------------------------------------------------
// The upstream: OpenAI chat completions, streamed, held at a gate

const sse = (chunk: object) => `data: ${JSON.stringify({ id: "chatcmpl-gate", object: "chat.completion.chunk", created: 1_763_751_600, model: "stub-model", ...chunk })}\n\n`;
const FIRST = sse({ choices: [{ index: 0, delta: { role: "assistant", content: "Waiting" }, finish_reason: null }] });
const REST =
  sse({ choices: [{ index: 0, delta: { content: " at the gate." }, finish_reason: null }] }) +
  sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }) +
  sse({ choices: [], usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS, total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS } }) +
  "data: [DONE]\n\n";

const upstream = {
  /** Streamed completions that reached the stub. */
  arrived: 0,
  /** Of those, how many have sent their last byte. */
  finished: 0,
  inFlight: 0,
  maxInFlight: 0,
  /** Anything else that reached it (a wrong path, a call that did not ask to stream). */
  unexpected: [] as string[],
  gate: Promise.withResolvers<void>(),
  reset() {
    Object.assign(this, { arrived: 0, finished: 0, inFlight: 0, maxInFlight: 0, unexpected: [], gate: Promise.withResolvers<void>() });
  },
};

let stub: ReturnType<typeof Bun.serve>;
let dataDir: string;
let apiKey: string;

function startStub() {
  const encoder = new TextEncoder();
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0, // a call held at the gate sends nothing for a while
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const body = req.method === "POST" ? ((await req.json().catch(() => null)) as { stream?: boolean } | null) : null;
      if (req.method !== "POST" || path !== "/v1/chat/completions" || body?.stream !== true) {
        upstream.unexpected.push(`${req.method} ${path}`);
        return new Response("not what this stub answers", { status: 404 });
      }
      upstream.arrived++;
      upstream.inFlight++;
      upstream.maxInFlight = Math.max(upstream.maxInFlight, upstream.inFlight);
      const gate = upstream.gate.promise;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        upstream.inFlight--;
        upstream.finished++;
      };
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode(FIRST));
          await gate;
          try {
            controller.enqueue(encoder.encode(REST));
            controller.close();
          } catch {
            // svc went away first (a failed test tearing down)
          }
          finish();
        },
        cancel: finish,
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Clients: one socket each, HTTP/1.1 by hand

interface Call {
  /** Every byte received so far (latin1: one char per byte). */
  raw: string;
  status: number | null;
  closed: boolean;
  failure: string | null;
  socket: { terminate(): void } | null;
}

function openCall(port: number, key: string): Call {
  const call: Call = { raw: "", status: null, closed: false, failure: null, socket: null };
  const request =
    `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(REQUEST_BODY)}\r\nConnection: close\r\n\r\n${REQUEST_BODY}`;
  const gone = (why: string | null) => {
    call.closed = true;
    if (why && !call.failure) call.failure = why;
  };
  Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      open(socket) {
        call.socket = socket;
        socket.write(request);
      },
      data(_socket, bytes) {
        call.raw += Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
        if (call.status === null && call.raw.includes("\r\n")) call.status = Number(/^HTTP\/1\.1 (\d{3})/.exec(call.raw)?.[1] ?? 0);
      },
      close() {
        gone(null);
      },
      error(_socket, err) {
        gone(err.message);
      },
      connectError(_socket, err) {
        gone(`connect: ${err.message}`);
      },
    },
  }).catch((err: unknown) => gone(`connect: ${err instanceof Error ? err.message : String(err)}`));
  return call;
}

/** The response body, chunked transfer coding undone. */
function bodyOf(call: Call): string {
  const split = call.raw.indexOf("\r\n\r\n");
  if (split < 0) return "";
  const head = call.raw.slice(0, split).toLowerCase();
  let rest = call.raw.slice(split + 4);
  if (!head.includes("transfer-encoding: chunked")) return Buffer.from(rest, "latin1").toString("utf8");
  let body = "";
  for (;;) {
    const eol = rest.indexOf("\r\n");
    if (eol < 0) break;
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (!Number.isFinite(size) || size === 0) break;
    body += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
  return Buffer.from(body, "latin1").toString("utf8");
}

/** svc forwarded the upstream's first chunk: the call holds its upstream request. */
const streaming = (c: Call) => c.status === 200 && c.raw.includes('"content":"Waiting"');
const ended = (c: Call) => c.raw.includes("data: [DONE]");

function closeCalls(calls: Call[]): void {
  for (const c of calls) {
    try {
      c.socket?.terminate();
    } catch {
      // already closed
    }
  }
}

/** Opens the upstream's gate and waits (bounded) until every call has ended and closed. */
async function releaseAll(calls: Call[]): Promise<void> {
  upstream.gate.resolve();
  const allEnded = await until(() => calls.every((c) => c.closed));
  expect(allEnded, describeCalls(calls)).toBe(true);
}

/** Whatever a test left: the gate open, its sockets closed, svc stopped cleanly. */
async function tearDown(served: Served, calls: Call[]): Promise<void> {
  upstream.gate.resolve();
  closeCalls(calls);
  expect(await served.stop()).toBe(0);
}

/** Polls `done` until it holds or `ms` pass; returns its last value. */
async function until(done: () => boolean, ms = WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (done()) return true;
    await Bun.sleep(20);
  }
  return done();
}

function describeCalls(calls: Call[]): string {
  const failed = calls.find((c) => c.failure !== null || (c.status !== null && c.status !== 200));
  return (
    `upstream: arrived ${upstream.arrived}, finished ${upstream.finished}, unexpected ${JSON.stringify(upstream.unexpected)}; ` +
    `calls: ${calls.filter(streaming).length} streaming, ${calls.filter(ended).length} ended, ${calls.filter((c) => c.closed).length} closed of ${calls.length}` +
    (failed ? `; first failure: ${failed.failure ?? ""} ${failed.raw.slice(0, 400)}` : "")
  );
}

// ---------------------------------------------------------------------------------------------
// What svc says and does

function servingLine(served: Served): Record<string, unknown> {
  for (const line of served.log().split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry.msg === "svc serving") return entry;
  }
  throw new Error(`no "svc serving" line in svc serve's log:\n${served.log()}`);
}

/** /proc/<pid>/environ and cmdline of a running process. */
function procView(pid: number): { env: Map<string, string>; cmdline: string[] } {
  const env = new Map<string, string>();
  for (const entry of readFileSync(`/proc/${pid}/environ`, "latin1").split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return { env, cmdline: readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").slice(0, -1) };
}

interface ReceiptLine {
  receipt_id: string | null;
  receipt: string | null;
  signature: string | null;
  cost_micro_usd: number;
}

function receiptOf(body: string): ReceiptLine | null {
  const line = body.split("\n").find((l) => l.startsWith(": svc.receipt "));
  return line ? (JSON.parse(line.slice(": svc.receipt ".length)) as ReceiptLine) : null;
}

/** Every call answered 200 and streamed to the end, with a signed receipt recorded in the database. */
async function expectMetered(served: Served, calls: Call[]): Promise<void> {
  const receipts: ReceiptLine[] = [];
  for (const c of calls) {
    expect(c.status).toBe(200);
    expect(c.failure).toBeNull();
    const body = bodyOf(c);
    expect(body.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(body).toContain(" at the gate.");
    const receipt = receiptOf(body);
    expect(receipt?.receipt_id).toBeString();
    expect(receipt!.cost_micro_usd).toBeGreaterThan(0);
    receipts.push(receipt!);
  }
  const ids = receipts.map((r) => r.receipt_id!);
  expect(new Set(ids).size).toBe(calls.length);
  // The same usage everywhere, so the same price everywhere.
  expect(new Set(receipts.map((r) => r.cost_micro_usd)).size).toBe(1);

  // Through the API: anyone can check a receipt's signature.
  for (const r of receipts.slice(0, 3)) {
    const res = await fetch(`${served.url}/v1/receipts/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ receipt: r.receipt, signature: r.signature }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { valid: boolean }).valid).toBe(true);
  }

  // In the database: a receipt and a usage event for each, at that cost, and no hold left open.
  const db = new Database(join(dataDir, "svc.db"), { readonly: true });
  try {
    const rows = db
      .query<{ id: string; kind: string; cost: number; event_cost: number | null }, [string]>(
        `SELECT r.id, r.kind, r.cost_micro_usd AS cost, e.cost_micro_usd AS event_cost
           FROM receipts r LEFT JOIN usage_events e ON e.id = r.usage_event_id
          WHERE r.id IN (SELECT value FROM json_each(?1))`,
      )
      .all(JSON.stringify(ids));
    expect(rows).toHaveLength(calls.length);
    for (const row of rows) {
      expect(row.kind).toBe("inference");
      expect(row.cost).toBe(receipts[0]!.cost_micro_usd);
      expect(row.event_cost).toBe(row.cost);
    }
    const openHolds = () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM holds WHERE status = 'open'").get()!.n;
    expect(await until(() => openHolds() === 0, 10_000)).toBe(true);
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  await svcBinary();
  stub = startStub();
  dataDir = join(tempDir("svc-outbound"), "data");
  const svc = async (...args: string[]) => {
    const r = await runSvc([...args, "--data-dir", dataDir], { env: { SVC_LOG_LEVEL: "warn" } });
    if (r.code !== 0) throw new Error(`svc ${args.join(" ")} failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  await svc("setup", "--yes", "--replica", "off");
  const account = (JSON.parse(await svc("accounts", "create", "--wallet", "0x00000000000000000000000000000000000b0b05", "--json")) as { id: string }).id;
  await svc("admin", "credit", "grant", "--account", account, "--micro-usd", String(1_000_000 * 1_000_000), "--reason", "outbound test");
  apiKey = (JSON.parse(await svc("keys", "mint", "--account", account, "--scopes", "inference", "--json")) as { key: string }).key;
  await svc("providers", "add", "gate", "--kind", "openai", "--base-url", `http://127.0.0.1:${stub.port}/v1`, "--timeout-secs", "120");
  await svc("models", "add", MODEL, "--provider", "gate", "--upstream", "stub-model", "--input-micro-usd-per-mtok", "150000", "--output-micro-usd-per-mtok", "600000", "--max-output", "1024");
  // Hundreds of calls in a second would trip the default per-key spending breaker.
  writeConfigFile(join(dataDir, "svc.toml"), { keys: { breaker_micro_usd_per_minute: 0 } });
}, 120_000);

afterAll(() => {
  upstream.gate.resolve();
  stub?.stop(true);
});

describe("upstream calls at once, through the compiled binary", () => {
  test.skipIf(DEFAULT_LIMIT < CALLS)(
    `unset: svc serve raises the limit from the open-files limit (here ${DEFAULT_LIMIT}); ${CALLS} streamed calls all reach the upstream at once`,
    async () => {
      upstream.reset();
      const served = await serveSvc(dataDir, { env: { SVC_LOG_LEVEL: "info" } });
      const calls: Call[] = [];
      try {
        // The process we started is the one serving: same PID, same arguments, now with the variable.
        const pid = served.proc.pid;
        const own = procView(pid);
        expect(own.env.get(OUTBOUND_ENV)).toBe(String(DEFAULT_LIMIT));
        expect(own.cmdline).toEqual([BINARY, "serve", "--data-dir", dataDir, "--listen", new URL(served.url).host]);
        expect(Number(readFileSync(join(dataDir, "svc.pid"), "utf8").trim())).toBe(pid);
        expect(servingLine(served).outbound_requests).toBe(DEFAULT_LIMIT);
        expect(DEFAULT_LIMIT).toBeGreaterThan(BUN_DEFAULT_OUTBOUND);
        // svc doctor reads it from the running server's environment.
        const doctor = await runSvc(["doctor", "--data-dir", dataDir, "--json"]);
        const line = (JSON.parse(doctor.stdout) as { name: string; status: string; message: string }[]).find((c) => c.name === "outbound requests");
        expect(line).toEqual({ name: "outbound requests", status: "ok", message: `svc serve (pid ${pid}) sends up to ${DEFAULT_LIMIT} requests out at once` });

        const port = Number(new URL(served.url).port);
        for (let i = 0; i < CALLS; i++) calls.push(openCall(port, apiKey));
        const allStreaming = await until(() => upstream.arrived === CALLS && calls.every(streaming));
        expect(allStreaming, describeCalls(calls)).toBe(true);
        // All of them at once: none has finished, at the upstream or at the client.
        expect(upstream.finished).toBe(0);
        expect(upstream.maxInFlight).toBe(CALLS);
        expect(calls.filter(ended)).toHaveLength(0);
        expect(calls.filter((c) => c.closed)).toHaveLength(0);

        await releaseAll(calls);
        expect(upstream.finished).toBe(CALLS);
        expect(upstream.unexpected).toEqual([]);
        await expectMetered(served, calls);
      } finally {
        await tearDown(served, calls);
      }
    },
    90_000,
  );

  test(`an operator's ${OUTBOUND_ENV}=${OPERATOR_LIMIT} is kept: of ${OPERATOR_CALLS} calls, ${OPERATOR_LIMIT} reach the upstream at once, and all finish`, async () => {
    upstream.reset();
    const served = await serveSvc(dataDir, { env: { SVC_LOG_LEVEL: "info", [OUTBOUND_ENV]: String(OPERATOR_LIMIT) } });
    const calls: Call[] = [];
    try {
      expect(procView(served.proc.pid).env.get(OUTBOUND_ENV)).toBe(String(OPERATOR_LIMIT));
      expect(servingLine(served).outbound_requests).toBe(OPERATOR_LIMIT);

      const port = Number(new URL(served.url).port);
      for (let i = 0; i < OPERATOR_CALLS; i++) calls.push(openCall(port, apiKey));
      const full = await until(() => upstream.arrived >= OPERATOR_LIMIT && calls.filter(streaming).length >= OPERATOR_LIMIT);
      expect(full, describeCalls(calls)).toBe(true);
      // The rest wait in svc's fetch queue, not refused: give them time to (wrongly) get through.
      await Bun.sleep(750);
      expect(upstream.arrived).toBe(OPERATOR_LIMIT);
      expect(calls.filter(streaming)).toHaveLength(OPERATOR_LIMIT);
      expect(calls.filter((c) => c.closed)).toHaveLength(0);

      await releaseAll(calls);
      expect(upstream.arrived).toBe(OPERATOR_CALLS);
      expect(upstream.maxInFlight).toBe(OPERATOR_LIMIT);
      expect(upstream.unexpected).toEqual([]);
      await expectMetered(served, calls);
    } finally {
      await tearDown(served, calls);
    }
  }, 90_000);
});
