#!/usr/bin/env bun
/**
 * Metered inference through the compiled binary (dist/svc), against a local upstream stub, in
 * one run: the same non-streaming chat completion sent straight to the stub ("direct") and
 * through svc ("gateway"), where every call is reserved, forwarded, settled and its receipt
 * signed. Prints the latency svc adds (p50/p99 at concurrency 1) and metered requests per
 * second at concurrency 64, with errors, a stream's added time to first byte, svc's own time
 * per call as its Server-Timing header reports it, and checks afterwards that every answered
 * call was metered (usage events and receipts in the database).
 *
 * The stub is a Bun.serve in this process answering a fixed chat completion with usage, so the
 * upstream costs next to nothing; svc is set up with the CLI (account, credit, key, provider,
 * model; circuit breaker off so a benchmark's spend per minute does not freeze the key).
 *
 * Usage: bun bench/inference.ts [--duration 10] [--concurrency 64] [--generator auto|wrk|bun] [--json]
 * See bench/README.md.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeConfigFile } from "../src/config.ts";
import { countTokens } from "../src/domains/inference/tokens.ts";
import { type LoadRow, loadRow, runFetchLoops, runWrk, stopWrk } from "./load.ts";
import { BIN, cli, ensureBinary, log, machineInfo, machineLine, meteredAfterRun, parseFlags, percentile, round3, run, runWithServer, svcEnv, SvcServer, svcVersion } from "./support.ts";

const WARMUP_SECS = 2;
const STOP_TIMEOUT_MS = 10_000;
export const MODEL = "bench-model";
export const BODY = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Say something short about benchmarks." }], max_tokens: 64 });
/** What the stub answers: a realistic chat completion, usage included (bench/peers.ts serves it too). */
export const REPLY = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_763_751_600,
  model: "stub-model",
  choices: [{ index: 0, message: { role: "assistant", content: "Benchmarks measure; they do not judge. Read them with their machine and their flags.", refusal: null }, logprobs: null, finish_reason: "stop" }],
  usage: { prompt_tokens: 14, completion_tokens: 19, total_tokens: 33, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
  system_fingerprint: null,
});

type GeneratorName = "wrk" | "bun";

const USAGE = `usage: bun bench/inference.ts [options]

  --duration SECS     measured seconds per run, after a ${WARMUP_SECS} s warm-up (default 10)
  --concurrency N     connections for the throughput runs (default 64); latency runs use 1
  --generator NAME    auto (wrk if on PATH, else bun), wrk, or bun (default auto)`;

function parseOptions() {
  const { values, fail } = parseFlags(
    { duration: { type: "string", default: "10" }, concurrency: { type: "string", default: "64" }, generator: { type: "string", default: "auto" } },
    USAGE,
  );
  const duration = Number(values.duration);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(duration) || duration < 1 || duration > 600) fail(`--duration must be whole seconds from 1 to 600, got "${values.duration}"`);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024) fail(`--concurrency must be an integer from 1 to 1024, got "${values.concurrency}"`);
  const generator = values.generator;
  if (generator !== "auto" && generator !== "wrk" && generator !== "bun") fail(`--generator must be auto, wrk or bun, got "${generator}"`);
  return { duration, concurrency, generator: generator as "auto" | GeneratorName, json: values.json };
}

// ---------------------------------------------------------------------------------------------
// Setup through the CLI, as an operator would

/** Account with credit, an API key, the stub as provider and a priced model; returns the key. */
export async function prepare(server: SvcServer, stubUrl: string): Promise<string> {
  const dir = server.dataDir;
  await run([BIN, "setup", "--yes", "--data-dir", dir, "--replica", "off"], { env: svcEnv({ SVC_LOG_LEVEL: "warn" }) });
  const account = JSON.parse(await cli(dir, ["accounts", "create", "--wallet", "0x00000000000000000000000000000000000be4c4", "--json"])).id as string;
  await cli(dir, ["admin", "credit", "grant", "--account", account, "--micro-usd", String(1_000_000 * 1_000_000), "--reason", "bench"]);
  const key = JSON.parse(await cli(dir, ["keys", "mint", "--account", account, "--scopes", "inference", "--json"])).key as string;
  await cli(dir, ["providers", "add", "stub", "--kind", "openai", "--base-url", `${stubUrl}/v1`, "--timeout-secs", "30"]);
  await cli(dir, ["models", "add", MODEL, "--provider", "stub", "--upstream", "stub-model", "--input-micro-usd-per-mtok", "150000", "--output-micro-usd-per-mtok", "600000", "--max-output", "1024"]);
  // A benchmark spends far more per minute than the default breaker allows; switch it off for this deployment.
  writeConfigFile(join(dir, "svc.toml"), { keys: { breaker_micro_usd_per_minute: 0 } });
  return key;
}

function luaScript(path: string, headers: Record<string, string>): string {
  const lines = ['wrk.method = "POST"', `wrk.body = ${JSON.stringify(BODY)}`, ...Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)];
  writeFileSync(path, lines.join("\n") + "\n");
  return path;
}

// ---------------------------------------------------------------------------------------------
// Main


/** The same completion as an OpenAI SSE stream: a role chunk, three text chunks, a usage chunk, [DONE]. */
export const STREAM_REPLY = [
  { choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
  ...["Benchmarks ", "measure ", "things."].map((t) => ({ choices: [{ index: 0, delta: { content: t }, finish_reason: null }] })),
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 14, completion_tokens: 4, total_tokens: 18 } },
]
  .map((c) => `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_763_751_600, model: "stub-model", ...c })}\n\n`)
  .join("")
  .concat("data: [DONE]\n\n");
const ascending = (xs: number[]) => Float64Array.from(xs).sort();

/** Where a bench sends its calls: svc's route or the stub's, with the headers each takes. */
export interface Endpoint {
  url: string;
  headers: Record<string, string>;
}

/** A request body asking for the same completion as a stream, with its usage. */
export const streamedBody = (body: string) => JSON.stringify({ ...JSON.parse(body), stream: true, stream_options: { include_usage: true } });
const STREAM_BODY = streamedBody(BODY);
export const STREAM_SAMPLES = 400;

/**
 * Time to the first byte of a streamed completion, sequential requests (concurrency 1): p50 and
 * p99 in ms. Throws when the answer is not a 200 event stream (a gateway that does not stream).
 */
export async function streamTtfb(url: string, headers: Record<string, string>, body = STREAM_BODY): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < STREAM_SAMPLES + 50; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { method: "POST", headers, body });
    const type = res.headers.get("content-type") ?? "";
    if (res.status !== 200 || !type.startsWith("text/event-stream")) {
      const text = (await res.text()).replace(/\s+/g, " ").slice(0, 160);
      throw new Error(`a streamed request answered ${res.status} ${type || "(no content-type)"}, not an event stream: ${text}`);
    }
    const reader = res.body!.getReader();
    await reader.read();
    const first = performance.now() - t0;
    while (!(await reader.read()).done) {
      // the rest of the stream (the gateway settles at its end)
    }
    if (i >= 50) samples.push(first); // the first 50 warm up
  }
  const sorted = ascending(samples);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

export const LONG_CALLS = 150;

/** Deterministic prose-and-code text of `words` words, different for each seed. */
function filler(seed: number, words: number): string {
  const vocabulary = "the agent reads the repository plans a change calls tools and writes code; def main(): return 42 # note {\"ok\": true}".split(" ");
  return Array.from({ length: words }, (_, i) => vocabulary[(i * 7 + seed) % vocabulary.length] + (i % 13 === 0 ? String(seed) : "")).join(" ");
}

/**
 * An agent's conversation as it grows: a long system prompt and history (~45,000 tokens), resent
 * with one more user message and one more reply on every call, sequentially, through svc and
 * straight to the stub with the same body. What svc adds for a long context: the body's parsing,
 * the prompt's token count for the reservation, the re-encoding for the upstream.
 */
export async function longConversation(gateway: Endpoint, direct: Endpoint, model = MODEL) {
  const messages: { role: string; content: string }[] = [{ role: "system", content: filler(1, 1500) }];
  for (let i = 0; i < 20; i++) messages.push({ role: i % 2 ? "assistant" : "user", content: filler(i + 2, 1200) });
  const svc: number[] = [];
  const through: number[] = [];
  const straight: number[] = [];
  const time = async (target: Endpoint, body: string, each?: (res: Response) => void) => {
    const t0 = performance.now();
    const res = await fetch(target.url, { method: "POST", headers: target.headers, body });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`a long-conversation call answered ${res.status}`);
    each?.(res);
    return performance.now() - t0;
  };
  let body = "";
  for (let i = 0; i < LONG_CALLS + 20; i++) {
    messages.push({ role: "user", content: filler(100 + i, 60) });
    body = JSON.stringify({ model, messages, max_tokens: 64 });
    const mine = (res: Response) => {
      const m = /svc;dur=([\d.]+)/.exec(res.headers.get("server-timing") ?? "");
      if (m && i >= 20) svc.push(Number(m[1]));
    };
    const g = await time(gateway, body, mine);
    const d = await time(direct, body);
    if (i >= 20) through.push(g), straight.push(d); // the first 20 warm up
    messages.push({ role: "assistant", content: filler(200 + i, 30) });
  }
  const [g, d, own] = [ascending(through), ascending(straight), ascending(svc)];
  return {
    prompt_tokens: countTokens(messages.map((m) => m.content).join("\n")),
    body_bytes: body.length,
    added_p50_ms: round3(percentile(g, 50) - percentile(d, 50)),
    added_p99_ms: round3(percentile(g, 99) - percentile(d, 99)),
    svc_p50_ms: round3(percentile(own, 50)),
  };
}

/** When the stub last received a request, on this process's clock (the client's): splits a call into its leg to the upstream and back. */
let stubArrival = 0;

/** Milliseconds from a sequential call's send to the stub's arrival, and from there to the answer read whole. */
async function legs(url: string, headers: Record<string, string>, each?: (res: Response) => void): Promise<{ to: Float64Array; back: Float64Array }> {
  const to: number[] = [];
  const back: number[] = [];
  for (let i = 0; i < STREAM_SAMPLES + 50; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { method: "POST", headers, body: BODY });
    await res.arrayBuffer();
    const t1 = performance.now();
    if (i < 50) continue; // the first 50 warm up
    to.push(stubArrival - t0);
    back.push(t1 - stubArrival);
    each?.(res);
  }
  return { to: ascending(to), back: ascending(back) };
}

/**
 * svc's own account of where a call's time went: its Server-Timing header (`upstream`, `svc`,
 * and `settle`, the part of `svc` spent settling) over sequential non-streamed calls — the
 * gateway's own work, without the client's or the network's share — and, from the stub's
 * arrival times, how much of the added time lies before the upstream (authentication,
 * preparation, reservation and the hops to the upstream) and how much after it (the settle, the
 * response and the hops back), each above the direct call's. In ms.
 */
async function serverTimingSplit(
  gateway: Endpoint,
  direct: Endpoint,
): Promise<{ svc_p50_ms: number; svc_p99_ms: number; settle_p50_ms: number; upstream_p50_ms: number; added_before_upstream_p50_ms: number; added_after_upstream_p50_ms: number }> {
  const svc: number[] = [];
  const upstream: number[] = [];
  const settle: number[] = [];
  const base = await legs(direct.url, direct.headers);
  const through = await legs(gateway.url, gateway.headers, (res) => {
    const m = /upstream;dur=([\d.]+), svc;dur=([\d.]+), settle;dur=([\d.]+)/.exec(res.headers.get("server-timing") ?? "");
    if (!m) throw new Error(`no Server-Timing on the gateway's answer (status ${res.status})`);
    upstream.push(Number(m[1])), svc.push(Number(m[2])), settle.push(Number(m[3]));
  });
  const own = ascending(svc);
  const p50 = (xs: Float64Array) => percentile(xs, 50);
  return {
    svc_p50_ms: round3(p50(own)),
    svc_p99_ms: round3(percentile(own, 99)),
    settle_p50_ms: round3(p50(ascending(settle))),
    upstream_p50_ms: round3(p50(ascending(upstream))),
    added_before_upstream_p50_ms: round3(p50(through.to) - p50(base.to)),
    added_after_upstream_p50_ms: round3(p50(through.back) - p50(base.back)),
  };
}

async function main(): Promise<number> {
  const opts = parseOptions();
  const wrkPath = Bun.which("wrk");
  const generator: GeneratorName = opts.generator === "auto" ? (wrkPath ? "wrk" : "bun") : opts.generator;
  if (generator === "wrk" && !wrkPath) {
    console.error("--generator wrk: wrk is not on PATH (Debian: apt-get install -y wrk)");
    return 2;
  }
  await ensureBinary();
  const machine = machineInfo(await svcVersion());

  const stub = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      stubArrival = performance.now();
      const streamed = (await req.text()).includes('"stream":true');
      return streamed ? new Response(STREAM_REPLY, { headers: { "content-type": "text/event-stream" } }) : new Response(REPLY, { headers: { "content-type": "application/json" } });
    },
  });
  const stubUrl = `http://127.0.0.1:${stub.port}`;
  const server = new SvcServer("svc-bench-inference-", STOP_TIMEOUT_MS);
  let key = "";
  try {
    key = await prepare(server, stubUrl);
  } catch (err) {
    console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    await server.stop();
    stub.stop(true);
    return 1;
  }

  const outcome = await runWithServer(server, ["--replica", "off"], stopWrk, async () => {
    const gatewayUrl = `${server.url}/v1/chat/completions`;
    const directUrl = `${stubUrl}/v1/chat/completions`;
    const gatewayHeaders = { "content-type": "application/json", authorization: `Bearer ${key}` };
    const directHeaders = { "content-type": "application/json" };
    const probe = await fetch(gatewayUrl, { method: "POST", headers: gatewayHeaders, body: BODY });
    if (probe.status !== 200) throw new Error(`the gateway answers ${probe.status} before the run: ${await probe.text()}`);
    await probe.arrayBuffer();
    const scripts = { gateway: luaScript(join(server.root, "gateway.lua"), gatewayHeaders), direct: luaScript(join(server.root, "direct.lua"), directHeaders) };
    const measure = (target: "direct" | "gateway", concurrency: number, secs: number) =>
      generator === "wrk"
        ? runWrk(target === "gateway" ? gatewayUrl : directUrl, concurrency, secs, scripts[target])
        : runFetchLoops(() => fetch(target === "gateway" ? gatewayUrl : directUrl, { method: "POST", headers: target === "gateway" ? gatewayHeaders : directHeaders, body: BODY }), concurrency, secs);

    const rows: LoadRow[] = [];
    for (const concurrency of [1, opts.concurrency]) {
      for (const target of ["direct", "gateway"] as const) {
        log(`${target}, concurrency ${concurrency}: ${WARMUP_SECS} s warm-up, then ${opts.duration} s`);
        await measure(target, concurrency, WARMUP_SECS);
        const r = await measure(target, concurrency, opts.duration);
        rows.push(loadRow(target, concurrency, r));
      }
    }
    log(`streaming time to first byte: ${STREAM_SAMPLES} sequential requests each, direct then gateway`);
    const ttfbDirect = await streamTtfb(directUrl, directHeaders);
    const ttfbGateway = await streamTtfb(gatewayUrl, gatewayHeaders);
    const ttfb = { direct_p50_ms: round3(ttfbDirect.p50), gateway_p50_ms: round3(ttfbGateway.p50), added_p50_ms: round3(ttfbGateway.p50 - ttfbDirect.p50), added_p99_ms: round3(ttfbGateway.p99 - ttfbDirect.p99) };
    log(`svc's own time: ${STREAM_SAMPLES} sequential calls each way, read from svc's Server-Timing and the stub's arrival times`);
    const split = await serverTimingSplit({ url: gatewayUrl, headers: gatewayHeaders }, { url: directUrl, headers: directHeaders });
    log(`a long conversation: ${LONG_CALLS} sequential calls, each resending it with one message more, gateway then direct`);
    const long = await longConversation({ url: gatewayUrl, headers: gatewayHeaders }, { url: directUrl, headers: directHeaders });
    // Every answered call must have been metered: one usage event and one signed receipt each,
    // and no hold left open once the calls wrk left in flight have finished (settled or released).
    const counted = await meteredAfterRun(join(server.dataDir, "svc.db"), "inference");
    return { rows, metered: counted.usage_events, receipts: counted.receipts, held: counted.open_holds, ttfb, split, long };
  });
  stub.stop(true);
  if (!outcome.ok) return outcome.code;
  const { rows, metered, receipts, held, ttfb, split, long } = outcome.value;
  const at = (target: string, c: number) => rows.find((r) => r.target === target && r.concurrency === c)!;
  const added = { p50_ms: round3(at("gateway", 1).p50_ms - at("direct", 1).p50_ms), p99_ms: round3(at("gateway", 1).p99_ms - at("direct", 1).p99_ms) };
  const saturation = at("gateway", opts.concurrency);
  const generatorNote = generator === "wrk" ? `wrk ${wrkPath} (Lua POST script, keep-alive)` : "bun fetch loops in this process";
  const sent = rows.filter((r) => r.target === "gateway").reduce((n, r) => n + r.requests, 0);

  if (opts.json) {
    console.log(JSON.stringify({ machine, generator: generatorNote, duration_secs: opts.duration, rows, added_latency_c1: added, streaming_ttfb: ttfb, server_timing: split, long_conversation: long, metered_rps: saturation.requests_per_sec, errors: saturation.errors, usage_events: metered, receipts, open_holds: held, gateway_requests_measured: sent }, null, 2));
    return 0;
  }
  console.log(`svc inference bench: ${machine.svc_version}`);
  console.log(`machine:   ${machineLine(machine)}`);
  console.log(`generator: ${generatorNote}; upstream: a Bun.serve stub in the bench process; non-streaming chat completion`);
  console.log(`run:       ${opts.duration} s per row after ${WARMUP_SECS} s warm-up; every gateway call reserved, settled and signed`);
  console.log();
  console.log(`${"target".padEnd(8)}  ${"conc".padStart(4)}  ${"req/s".padStart(8)}  ${"p50 ms".padStart(8)}  ${"p99 ms".padStart(8)}  ${"errors".padStart(6)}`);
  for (const r of rows) console.log(`${r.target.padEnd(8)}  ${String(r.concurrency).padStart(4)}  ${String(r.requests_per_sec).padStart(8)}  ${r.p50_ms.toFixed(3).padStart(8)}  ${r.p99_ms.toFixed(3).padStart(8)}  ${String(r.errors).padStart(6)}`);
  console.log();
  console.log(`added latency at concurrency 1:   p50 ${added.p50_ms.toFixed(3)} ms, p99 ${added.p99_ms.toFixed(3)} ms`);
  console.log(`metered requests/s at ${opts.concurrency}:       ${saturation.requests_per_sec} (errors: ${saturation.errors})`);
  console.log(`streaming time to first byte:     added p50 ${ttfb.added_p50_ms.toFixed(3)} ms, p99 ${ttfb.added_p99_ms.toFixed(3)} ms (direct p50 ${ttfb.direct_p50_ms.toFixed(3)} ms; ${STREAM_SAMPLES} sequential requests, fetch)`);
  console.log(`svc's own time per call:          p50 ${split.svc_p50_ms.toFixed(3)} ms, p99 ${split.svc_p99_ms.toFixed(3)} ms, of which the settle p50 ${split.settle_p50_ms.toFixed(3)} ms (its Server-Timing; upstream p50 ${split.upstream_p50_ms.toFixed(3)} ms; ${STREAM_SAMPLES} sequential calls, fetch)`);
  console.log(`where the added time lies:        p50 ${split.added_before_upstream_p50_ms.toFixed(3)} ms before the upstream's arrival, ${split.added_after_upstream_p50_ms.toFixed(3)} ms after it (the stub's arrival times against the direct call's; the same calls)`);
  console.log(`a long conversation:               added p50 ${long.added_p50_ms.toFixed(3)} ms, p99 ${long.added_p99_ms.toFixed(3)} ms, svc's own time p50 ${long.svc_p50_ms.toFixed(3)} ms (~${long.prompt_tokens} prompt tokens, a ${Math.round(long.body_bytes / 1024)} KiB body at the end, one message more each call; ${LONG_CALLS} sequential calls, fetch)`);
  console.log(`metered in the database:          ${metered} usage events, ${receipts} receipts (warm-ups included), ${held} holds left open`);
  return 0;
}

// bench/peers.ts imports the stub and the setup from here; only a direct run measures.
if (import.meta.main) process.exit(await main());
