#!/usr/bin/env bun
/**
 * The OpenAI Batch API through the compiled binary (dist/svc), with the official `openai` SDK:
 * upload a JSONL file of --lines chat-completion lines (POST /v1/files, purpose=batch), create a
 * batch on it (POST /v1/batches), poll GET /v1/batches/:id until it is completed, and download
 * the output file (GET /v1/files/:id/content). Every line runs through the metered pipeline
 * under the key that created the batch: claimed, reserved, sent upstream, settled and receipted,
 * its result written in the settle's transaction.
 *
 *   upload          files.create of the whole JSONL (checked line by line and sealed by svc)
 *   create → done   batches.create sent → the first batches.retrieve that answers "completed"
 *                   (polled every POLL_MS, so that resolution); lines/s = lines / that time
 *   runner          the first line's started_at → the last line's finished_at (batch_lines, ms)
 *   download        files.content(output_file_id) until the whole body is read
 *
 * Checks: request_counts.completed = --lines (and none failed), one output line per input line
 * with status 200, the sum of the output lines' cost_micro_usd = the batch's cost_micro_usd, one
 * inference receipt per line, no hold left open.
 *
 * The model is the suite's stand-in (test/support/upstream-openai.ts's chat completions: "reply
 * to: <input>" with real token counts) served by a Bun.serve in this process on 127.0.0.1,
 * registered with the CLI as an `openai` provider and a priced model. With --upstream-delay-ms
 * the model's upstream name is "stub-gpt@slow" (the suite's behaviour suffix) and the stand-in
 * waits that long before each answer, as the suite's stub does for @slow with x-stub-delay-ms
 * (a batch line cannot carry that header, so the bench applies the delay itself).
 *
 * svc is set up as an operator would, with the CLI: an account, credit, an API key (scope
 * inference), the provider and the model; the breaker off (a benchmark spends more per minute
 * than the default allows) and [batches] concurrency / line_concurrency from the flags, in
 * svc.toml (the batches section has no SVC_* variables). Replication off, public rate limit off.
 *
 * Usage: bun bench/batches.ts [--lines 2000] [--concurrency 16] [--line-concurrency 8] [--upstream-delay-ms 0] [--json]
 * See bench/README.md.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import OpenAI, { toFile } from "openai";
import { writeConfigFile } from "../src/config.ts";
import { openaiChat } from "../test/support/upstream-openai.ts";
import { BIN, cli, ensureBinary, log, machineInfo, machineLine, now, parseFlags, round3, run, runWithServer, sleep, svcEnv, SvcServer, svcVersion } from "./support.ts";

const STOP_TIMEOUT_MS = 15_000;
const MODEL = "bench-batch-model";
/** How often batches.retrieve is polled: the resolution of create → completed. */
const POLL_MS = 20;
/** Longest the bench waits for the batch to complete. */
const BATCH_WAIT_MS = 600_000;
/** Per SDK request. */
const REQUEST_TIMEOUT_MS = 60_000;
/** The defaults of src/domains/batches/config.ts, repeated for the usage text. */
const DEFAULT_CONCURRENCY = 16;
const DEFAULT_LINE_CONCURRENCY = 8;
/** files.max_lines' default: the most lines one upload may hold. */
const MAX_LINES = 50_000;

const USAGE = `usage: bun bench/batches.ts [options]

  --lines N               chat-completion lines in the batch's input file (default 2000, at most ${MAX_LINES})
  --concurrency N         batches.concurrency: lines in flight across all batches (default ${DEFAULT_CONCURRENCY})
  --line-concurrency N    batches.line_concurrency: lines in flight within one batch (default ${DEFAULT_LINE_CONCURRENCY})
  --upstream-delay-ms N   the stand-in waits N ms before each answer (model "stub-gpt@slow"; default 0: no wait)`;

function parseOptions() {
  const { values, int } = parseFlags(
    {
      lines: { type: "string", default: "2000" },
      concurrency: { type: "string", default: String(DEFAULT_CONCURRENCY) },
      "line-concurrency": { type: "string", default: String(DEFAULT_LINE_CONCURRENCY) },
      "upstream-delay-ms": { type: "string", default: "0" },
    },
    USAGE,
  );
  return {
    lines: int("lines", values.lines, 1, MAX_LINES),
    concurrency: int("concurrency", values.concurrency, 1, 1024),
    lineConcurrency: int("line-concurrency", values["line-concurrency"], 1, 1024),
    upstreamDelayMs: int("upstream-delay-ms", values["upstream-delay-ms"], 0, 60_000),
    json: values.json,
  };
}

// ---------------------------------------------------------------------------------------------
// The stand-in model: the suite's OpenAI chat completions, non-streaming; "@slow" waits delayMs

function startStandIn(delayMs: number): { url: string; calls: () => number; stop(): void } {
  let calls = 0;
  let ids = 0;
  const knobs = { delayMs, chunkDelayMs: 0, retryAfter: "7", rejectMessage: "", cutAfter: 3, outputTokens: undefined, cachedTokens: 0, ping: false };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0, // a slow answer must not be cut off by the server's own idle timer
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST" || path !== "/v1/chat/completions") return new Response("not found", { status: 404 });
      const body = (await req.json()) as { model?: string; stream?: boolean };
      if (body.stream) return new Response("the bench's stand-in does not stream", { status: 400 });
      calls++;
      const name = String(body.model ?? "");
      const slow = name.endsWith("@slow");
      if (slow && knobs.delayMs > 0) await sleep(knobs.delayMs);
      const reply = openaiChat({ body, model: slow ? name.slice(0, -"@slow".length) : name, knobs, nextId: () => ++ids });
      if (!("json" in reply)) return new Response("unexpected stream reply", { status: 500 });
      return new Response(JSON.stringify(reply.json), { headers: { "content-type": "application/json" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, calls: () => calls, stop: () => server.stop(true) };
}

// ---------------------------------------------------------------------------------------------
// Setup through the CLI, as an operator would

type Options = ReturnType<typeof parseOptions>;

/** Before `svc serve`: setup, an account with credit and a key, the stand-in and a priced model, the bench's settings. Returns the key. */
async function prepare(server: SvcServer, standInUrl: string, opts: Options): Promise<string> {
  const dir = server.dataDir;
  await run([BIN, "setup", "--yes", "--data-dir", dir, "--replica", "off"], { env: svcEnv({ SVC_LOG_LEVEL: "warn" }) });
  const account = JSON.parse(await cli(dir, ["accounts", "create", "--wallet", "0x00000000000000000000000000000000000ba7c4", "--json"])).id as string;
  await cli(dir, ["admin", "credit", "grant", "--account", account, "--micro-usd", String(1_000_000 * 1_000_000), "--reason", "bench"]);
  const key = JSON.parse(await cli(dir, ["keys", "mint", "--account", account, "--scopes", "inference", "--json"])).key as string;
  await cli(dir, ["providers", "add", "standin", "--kind", "openai", "--base-url", `${standInUrl}/v1`, "--timeout-secs", "30"]);
  const upstream = opts.upstreamDelayMs > 0 ? "stub-gpt@slow" : "stub-gpt";
  await cli(dir, ["models", "add", MODEL, "--provider", "standin", "--upstream", upstream, "--input-micro-usd-per-mtok", "150000", "--output-micro-usd-per-mtok", "600000", "--max-output", "256"]);
  // A benchmark spends more per minute than the default breaker allows: off for this deployment.
  writeConfigFile(join(dir, "svc.toml"), { keys: { breaker_micro_usd_per_minute: 0 }, batches: { concurrency: opts.concurrency, line_concurrency: opts.lineConcurrency } });
  return key;
}

function inputJsonl(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(JSON.stringify({ custom_id: `r${i}`, method: "POST", url: "/v1/chat/completions", body: { model: MODEL, messages: [{ role: "user", content: `Say something short about batch line ${i}.` }], max_tokens: 64 } }));
  }
  return `${out.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// Main

/** svc's additions to the batch object (the SDK's type does not name them). */
interface SvcBatch {
  cost_micro_usd?: number;
  error_class?: string | null;
}

interface OutputLine {
  custom_id: string;
  response: { status_code: number } | null;
  receipt_id: string | null;
  cost_micro_usd: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

async function main(): Promise<number> {
  const opts = parseOptions();
  await ensureBinary();
  const machine = machineInfo(await svcVersion());
  const standIn = startStandIn(opts.upstreamDelayMs);
  const server = new SvcServer("svc-bench-batches-", STOP_TIMEOUT_MS);
  let key = "";
  try {
    key = await prepare(server, standIn.url, opts);
  } catch (err) {
    console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    await server.stop();
    standIn.stop();
    return 1;
  }

  const outcome = await runWithServer(server, ["--replica", "off"], () => standIn.stop(), async (interrupted) => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0, timeout: REQUEST_TIMEOUT_MS });
    const jsonl = inputJsonl(opts.lines);

    log(`uploading ${opts.lines} lines (${jsonl.length} bytes)`);
    let t0 = now();
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl), "bench-batch.jsonl", { type: "application/jsonl" }), purpose: "batch" });
    const uploadMs = now() - t0;

    log(`creating the batch (batches.concurrency ${opts.concurrency}, line_concurrency ${opts.lineConcurrency}); polling every ${POLL_MS} ms`);
    t0 = now();
    let batch = await client.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
    const createAnsweredMs = now() - t0;
    let polls = 0;
    const deadline = t0 + BATCH_WAIT_MS;
    while (batch.status !== "completed") {
      if (interrupted()) throw new Error("interrupted");
      if (batch.status === "failed" || batch.status === "expired" || batch.status === "cancelled") throw new Error(`the batch ended ${batch.status}: ${JSON.stringify(batch)}`);
      if (now() > deadline) throw new Error(`the batch was still ${batch.status} after ${BATCH_WAIT_MS / 1000} s (${JSON.stringify(batch.request_counts)})`);
      await sleep(POLL_MS);
      batch = await client.batches.retrieve(batch.id);
      polls++;
    }
    const wallMs = now() - t0;
    const svcBatch = batch as typeof batch & SvcBatch;
    if (!batch.output_file_id) throw new Error(`the completed batch has no output file: ${JSON.stringify(batch)}`);

    log(`downloading the output file ${batch.output_file_id}`);
    t0 = now();
    const content = await client.files.content(batch.output_file_id);
    const text = await content.text();
    const downloadMs = now() - t0;
    const out = text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as OutputLine);
    const ids = new Set(out.map((l) => l.custom_id));

    const db = new Database(join(server.dataDir, "svc.db"), { readonly: true });
    try {
      const count = (sql: string, ...args: string[]) => db.query<{ n: number }, string[]>(sql).get(...args)!.n;
      const span = db.query<{ first: number; last: number }, [string]>("SELECT min(started_at) AS first, max(finished_at) AS last FROM batch_lines WHERE batch_id = ?").get(batch.id)!;
      const check = {
        total: batch.request_counts?.total ?? -1,
        completed: batch.request_counts?.completed ?? -1,
        failed: batch.request_counts?.failed ?? -1,
        output_lines: out.length,
        output_lines_200: out.filter((l) => l.response?.status_code === 200 && l.receipt_id !== null).length,
        distinct_custom_ids: ids.size,
        output_cost_micro_usd: out.reduce((sum, l) => sum + l.cost_micro_usd, 0),
        batch_cost_micro_usd: svcBatch.cost_micro_usd ?? -1,
        error_file: batch.error_file_id ?? null,
        receipts: count("SELECT count(*) AS n FROM receipts WHERE kind = 'inference'"),
        open_holds: count("SELECT count(*) AS n FROM holds WHERE status = 'open'"),
        upstream_calls: standIn.calls(),
      };
      return {
        batch_id: batch.id,
        input_bytes: jsonl.length,
        output_bytes: text.length,
        upload_ms: round1(uploadMs),
        create_answered_ms: round1(createAnsweredMs),
        create_to_completed_ms: round1(wallMs),
        lines_per_sec: round1(opts.lines / (wallMs / 1000)),
        runner_ms: span.last - span.first,
        runner_lines_per_sec: round1(opts.lines / ((span.last - span.first) / 1000)),
        download_ms: round1(downloadMs),
        polls,
        usage: batch.usage ?? null,
        check,
      };
    } finally {
      db.close();
    }
  });
  standIn.stop();
  if (!outcome.ok) return outcome.code;
  const r = outcome.value;
  const c = r.check;
  const ok =
    c.total === opts.lines &&
    c.completed === opts.lines &&
    c.failed === 0 &&
    c.output_lines === opts.lines &&
    c.output_lines_200 === opts.lines &&
    c.distinct_custom_ids === opts.lines &&
    c.output_cost_micro_usd === c.batch_cost_micro_usd &&
    c.receipts === opts.lines &&
    c.open_holds === 0;

  const settings = { lines: opts.lines, concurrency: opts.concurrency, line_concurrency: opts.lineConcurrency, upstream_delay_ms: opts.upstreamDelayMs, poll_ms: POLL_MS };
  if (opts.json) {
    console.log(JSON.stringify({ machine, settings, ...r, ok }, null, 2));
  } else {
    const secs = (ms: number) => `${round3(ms / 1000).toFixed(3)} s`;
    console.log(`svc batches bench: ${machine.svc_version}`);
    console.log(`machine:  ${machineLine(machine)}`);
    console.log(`model:    the suite's stand-in (test/support/upstream-openai.ts) in the bench process; ${opts.upstreamDelayMs > 0 ? `"stub-gpt@slow", ${opts.upstreamDelayMs} ms before each answer` : "no delay"}`);
    console.log(`svc:      batches.concurrency ${opts.concurrency}, batches.line_concurrency ${opts.lineConcurrency}; breaker off; every line reserved, settled and receipted`);
    console.log(`client:   openai SDK, batches.retrieve polled every ${POLL_MS} ms`);
    console.log();
    console.log(`lines                 ${opts.lines}`);
    console.log(`upload                ${secs(r.upload_ms)}  (${r.input_bytes} bytes, files.create)`);
    console.log(`create answered       ${secs(r.create_answered_ms)}  (batches.create)`);
    console.log(`create → completed    ${secs(r.create_to_completed_ms)}  (${r.polls} polls)`);
    console.log(`lines/s               ${r.lines_per_sec}  (lines / create → completed)`);
    console.log(`runner                ${secs(r.runner_ms)}  (first line started → last line finished; ${r.runner_lines_per_sec} lines/s)`);
    console.log(`download              ${secs(r.download_ms)}  (${r.output_bytes} bytes, files.content of the output file)`);
    console.log(`usage                 ${r.usage ? `${r.usage.input_tokens} input + ${r.usage.output_tokens} output tokens` : "none reported"}, ${c.batch_cost_micro_usd} micro-USD`);
    console.log(
      `checked: request_counts ${c.completed}/${c.total} completed, ${c.failed} failed; ${c.output_lines} output lines (${c.output_lines_200} with 200 and a receipt, ${c.distinct_custom_ids} custom_ids); ` +
        `cost of the lines ${c.output_cost_micro_usd} ${c.output_cost_micro_usd === c.batch_cost_micro_usd ? "=" : "≠"} batch ${c.batch_cost_micro_usd} micro-USD; ` +
        `${c.receipts} inference receipts, ${c.upstream_calls} upstream calls, ${c.open_holds} holds open${c.error_file ? `; error file ${c.error_file}` : ""}`,
    );
  }
  if (!ok) {
    console.error(`[bench] failed: ${JSON.stringify(c)}`);
    return 1;
  }
  return 0;
}

process.exit(await main());
