#!/usr/bin/env bun
/**
 * Hosted agents through the compiled binary (dist/svc): inbound hooks to runs, with the suite's
 * stand-in model (test/support/upstream-openai.ts's chat completions: "reply to: <input>", real
 * token counts) served by a Bun.serve in this process. Every run is one model call through the
 * metered pipeline under the agent's own key: reserved, settled, receipted into the run.
 *
 *   hook → run start    sequential: POST /v1/agents/:id/hooks/:token, then the run's started_at
 *                       (svc's wall clock, ms) minus the moment the POST was sent (this machine's
 *                       wall clock); also the 202's round trip and hook → run finished. The next
 *                       hook goes out once the run has finished (GET …/runs/:run_id polled), so
 *                       every sample meets an idle queue.
 *   sustained runs/s    --runs hook calls from --concurrency senders at once; then waits until
 *                       every run has finished: runs / (last finished_at - first send). Also
 *                       hook → run start under that load (queueing in the scheduler included).
 *
 * Afterwards it checks the database: every run succeeded with one model step, one inference
 * receipt chained into each run, no hold left open.
 *
 * svc is set up as an operator and a person would: `svc setup`, the stand-in as an openai-kind
 * provider and a priced model (CLI), a SIWE sign-in (viem), credit with the CLI, the agent and its
 * hook over HTTP. The deployment's breaker is off and the hook's per-token rate limit is off
 * (agents.hook_per_minute = 0): the bench measures the path, not 429s. The scheduler keeps its
 * defaults (poll_ms 500, concurrency 4): a hook's commit wakes it, and 4 runs execute at once.
 *
 * Usage: bun bench/agents.ts [--samples 100] [--runs 200] [--concurrency 16] [--json]
 * See bench/README.md.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { writeConfigFile } from "../src/config.ts";
import { openaiChat } from "../test/support/upstream-openai.ts";
import { BIN, cli, ensureBinary, log, machineInfo, machineLine, now, parseFlags, percentile, run, runWithServer, signIn, svcEnv, SvcServer, svcVersion } from "./support.ts";

const STOP_TIMEOUT_MS = 15_000;
const WARMUP = 10;
const MODEL = "bench-agent-model";
/** Longest the bench waits for one run, or for the sustained batch to drain. */
const RUN_WAIT_MS = 60_000;
const DRAIN_WAIT_MS = 300_000;
const POLL_MS = 5;

const USAGE = `usage: bun bench/agents.ts [options]

  --samples N         sequential hook → run start samples, after ${WARMUP} warm-up calls (default 100)
  --runs N            hook calls of the sustained run (default 200)
  --concurrency N     hook senders at once in the sustained run (default 16)`;

function parseOptions() {
  const { values, int } = parseFlags(
    { samples: { type: "string", default: "100" }, runs: { type: "string", default: "200" }, concurrency: { type: "string", default: "16" } },
    USAGE,
  );
  return {
    samples: int("samples", values.samples, 1, 10_000),
    runs: int("runs", values.runs, 1, 100_000),
    concurrency: int("concurrency", values.concurrency, 1, 256),
    json: values.json,
  };
}

// ---------------------------------------------------------------------------------------------
// The stand-in model: the suite's OpenAI chat completions, non-streaming, no behaviours

function startStandIn(): { url: string; calls: () => number; stop(): void } {
  let calls = 0;
  let ids = 0;
  const knobs = { delayMs: 0, chunkDelayMs: 0, retryAfter: "7", rejectMessage: "", cutAfter: 3, outputTokens: undefined, cachedTokens: 0, ping: false };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST" || path !== "/v1/chat/completions") return new Response("not found", { status: 404 });
      const body = (await req.json()) as { model?: string; stream?: boolean };
      if (body.stream) return new Response("the bench's stand-in does not stream", { status: 400 });
      calls++;
      const reply = openaiChat({ body, model: String(body.model ?? ""), knobs, nextId: () => ++ids });
      if (!("json" in reply)) return new Response("unexpected stream reply", { status: 500 });
      return new Response(JSON.stringify(reply.json), { headers: { "content-type": "application/json" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, calls: () => calls, stop: () => server.stop(true) };
}

// ---------------------------------------------------------------------------------------------
// Setup, as an operator and a person would

/** Before `svc serve`: setup, the stand-in as provider and a priced model, the bench's settings. */
async function configure(server: SvcServer, standInUrl: string): Promise<void> {
  const dir = server.dataDir;
  await run([BIN, "setup", "--yes", "--data-dir", dir, "--replica", "off"], { env: svcEnv({ SVC_LOG_LEVEL: "warn" }) });
  await cli(dir, ["providers", "add", "standin", "--kind", "openai", "--base-url", `${standInUrl}/v1`, "--timeout-secs", "30"]);
  await cli(dir, ["models", "add", MODEL, "--provider", "standin", "--upstream", "stub-gpt", "--input-micro-usd-per-mtok", "150000", "--output-micro-usd-per-mtok", "600000", "--max-output", "256"]);
  // A benchmark spends more per minute than the default breaker allows, and calls one hook far
  // more often than its default rate limit (60/min, burst 20): both off for this deployment.
  writeConfigFile(join(dir, "svc.toml"), { keys: { breaker_micro_usd_per_minute: 0 }, agents: { hook_per_minute: 0 } });
}

/** SIWE sign-in with a fresh wallet, credit, an agent and its hook; returns what the load needs. */
async function prepare(server: SvcServer): Promise<{ session: string; agentId: string; hookUrl: string }> {
  const { session, accountId: account_id } = await signIn(server.url);
  await cli(server.dataDir, ["admin", "credit", "grant", "--account", account_id, "--micro-usd", String(1_000_000 * 1_000_000), "--reason", "bench"]);
  const auth = { authorization: `Bearer ${session}`, "content-type": "application/json" };
  const made = await fetch(`${server.url}/v1/agents`, { method: "POST", headers: auth, body: JSON.stringify({ name: "bench", model: MODEL, instructions: "Answer in one short sentence." }) });
  if (made.status !== 201) throw new Error(`POST /v1/agents: ${made.status} ${await made.text()}`);
  const { id: agentId } = (await made.json()) as { id: string };
  const rotated = await fetch(`${server.url}/v1/agents/${agentId}/hooks/rotate`, { method: "POST", headers: { authorization: `Bearer ${session}` } });
  if (rotated.status !== 200) throw new Error(`hooks/rotate: ${rotated.status} ${await rotated.text()}`);
  const { url } = (await rotated.json()) as { url: string };
  // The URL is public_url's; the bench talks to the listener it started.
  return { session, agentId, hookUrl: `${server.url}${new URL(url).pathname}` };
}

// ---------------------------------------------------------------------------------------------
// Load

interface Sent {
  runId: string;
  /** Date.now() just before the POST (comparable with svc's started_at / finished_at). */
  sentAtMs: number;
  /** performance.now() round trip of the 202. */
  acceptedMs: number;
}

async function hook(url: string, n: number): Promise<Sent> {
  const body = JSON.stringify({ event: "bench", n, at: new Date().toISOString() });
  const sentAtMs = Date.now();
  const t0 = now();
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await res.text();
  const acceptedMs = now() - t0;
  if (res.status !== 202) throw new Error(`hook call ${n}: ${res.status} ${text}`);
  return { runId: (JSON.parse(text) as { run_id: string }).run_id, sentAtMs, acceptedMs };
}

interface RunTimes {
  status: string;
  started_at: string | null;
  finished_at: string | null;
}

async function waitFinished(base: string, session: string, agentId: string, runId: string): Promise<RunTimes> {
  const deadline = now() + RUN_WAIT_MS;
  while (now() < deadline) {
    const res = await fetch(`${base}/v1/agents/${agentId}/runs/${runId}`, { headers: { authorization: `Bearer ${session}` } });
    const run = (await res.json()) as RunTimes;
    if (res.status !== 200) throw new Error(`GET run ${runId}: ${res.status} ${JSON.stringify(run)}`);
    if (run.status !== "queued" && run.status !== "running") return run;
    await Bun.sleep(POLL_MS);
  }
  throw new Error(`run ${runId} did not finish within ${RUN_WAIT_MS / 1000} s`);
}

const sorted = (xs: number[]) => Float64Array.from(xs).sort();
const round1 = (n: number) => Math.round(n * 10) / 10;
const stats = (xs: number[]) => {
  const s = sorted(xs);
  return { p50: round1(percentile(s, 50)), p99: round1(percentile(s, 99)), max: round1(s[s.length - 1] ?? Number.NaN) };
};

async function main(): Promise<number> {
  const opts = parseOptions();
  await ensureBinary();
  const machine = machineInfo(await svcVersion());
  const standIn = startStandIn();
  const server = new SvcServer("svc-bench-agents-", STOP_TIMEOUT_MS);
  try {
    await configure(server, standIn.url);
  } catch (err) {
    console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    await server.stop();
    standIn.stop();
    return 1;
  }

  const outcome = await runWithServer(server, ["--replica", "off"], () => standIn.stop(), async (interrupted) => {
    const { session, agentId, hookUrl } = await prepare(server);
    const finished = (runId: string) => waitFinished(server.url, session, agentId, runId);

    log(`${WARMUP} warm-up hook calls, then ${opts.samples} sequential samples`);
    const seq: { accepted: number; started: number; finished: number }[] = [];
    for (let i = 0; i < WARMUP + opts.samples; i++) {
      if (interrupted()) throw new Error("interrupted");
      const sent = await hook(hookUrl, i);
      const r = await finished(sent.runId);
      if (r.status !== "succeeded" || !r.started_at || !r.finished_at) throw new Error(`run ${sent.runId} ended ${r.status}`);
      if (i >= WARMUP) seq.push({ accepted: sent.acceptedMs, started: Date.parse(r.started_at) - sent.sentAtMs, finished: Date.parse(r.finished_at) - sent.sentAtMs });
    }

    log(`${opts.runs} hook calls from ${opts.concurrency} senders at once`);
    const batch: Sent[] = [];
    let next = 0;
    const firstSend = Date.now();
    await Promise.all(
      Array.from({ length: Math.min(opts.concurrency, opts.runs) }, async () => {
        while (next < opts.runs && !interrupted()) batch.push(await hook(hookUrl, 100_000 + next++));
      }),
    );
    const sendSecs = (Date.now() - firstSend) / 1000;
    const db = new Database(join(server.dataDir, "svc.db"), { readonly: true });
    try {
      const count = (sql: string, ...args: string[]) => db.query<{ n: number }, string[]>(sql).get(...args)!.n;
      const deadline = now() + DRAIN_WAIT_MS;
      while (count("SELECT count(*) AS n FROM agent_runs WHERE agent_id = ? AND status IN ('queued', 'running')", agentId) > 0) {
        if (interrupted()) throw new Error("interrupted");
        if (now() > deadline) throw new Error(`runs still unfinished after ${DRAIN_WAIT_MS / 1000} s`);
        await Bun.sleep(20);
      }
      const rows = db
        .query<{ id: string; status: string; started_at: number | null; finished_at: number | null }, string[]>(
          `SELECT id, status, started_at, finished_at FROM agent_runs WHERE id IN (${batch.map(() => "?").join(",")})`,
        )
        .all(...batch.map((b) => b.runId));
      const byId = new Map(rows.map((r) => [r.id, r]));
      const lastFinish = Math.max(...rows.map((r) => r.finished_at ?? 0));
      const underLoad = batch.map((b) => (byId.get(b.runId)?.started_at ?? Number.NaN) - b.sentAtMs);
      const totalRuns = count("SELECT count(*) AS n FROM agent_runs WHERE agent_id = ?", agentId);
      const check = {
        runs: totalRuns,
        succeeded: count("SELECT count(*) AS n FROM agent_runs WHERE agent_id = ? AND status = 'succeeded'", agentId),
        model_steps: count("SELECT count(*) AS n FROM agent_run_steps s JOIN agent_runs r ON r.id = s.run_id WHERE r.agent_id = ? AND s.kind = 'model' AND s.status = 'succeeded' AND s.receipt_id IS NOT NULL", agentId),
        receipts: count("SELECT count(*) AS n FROM receipts WHERE kind = 'inference' AND run_id IN (SELECT id FROM agent_runs WHERE agent_id = ?)", agentId),
        open_holds: count("SELECT count(*) AS n FROM holds WHERE status = 'open'"),
        model_calls: standIn.calls(),
      };
      return {
        sequential: { samples: seq.length, accepted_ms: stats(seq.map((s) => s.accepted)), hook_to_start_ms: stats(seq.map((s) => s.started)), hook_to_finish_ms: stats(seq.map((s) => s.finished)) },
        sustained: {
          runs: batch.length,
          concurrency: opts.concurrency,
          hook_calls_per_sec: Math.round(batch.length / sendSecs),
          runs_per_sec: round1(batch.length / ((lastFinish - firstSend) / 1000)),
          wall_secs: round1((lastFinish - firstSend) / 1000),
          hook_to_start_ms: stats(underLoad),
          accepted_ms: stats(batch.map((b) => b.acceptedMs)),
        },
        check,
      };
    } finally {
      db.close();
    }
  });
  standIn.stop();
  if (!outcome.ok) return outcome.code;
  const { sequential, sustained, check } = outcome.value;
  const ok = check.succeeded === check.runs && check.model_steps === check.runs && check.receipts === check.runs && check.open_holds === 0;

  if (opts.json) {
    console.log(JSON.stringify({ machine, scheduler: { poll_ms: 500, concurrency: 4 }, sequential, sustained, check }, null, 2));
  } else {
    const ms = (s: { p50: number; p99: number; max: number }) => `p50 ${s.p50.toFixed(1).padStart(6)}  p99 ${s.p99.toFixed(1).padStart(6)}  max ${s.max.toFixed(1).padStart(6)} ms`;
    console.log(`svc hosted agents bench: ${machine.svc_version}`);
    console.log(`machine: ${machineLine(machine)}`);
    console.log(`model:   the suite's stand-in (test/support/upstream-openai.ts) in the bench process; one model call per run, metered and receipted`);
    console.log(`svc:     scheduler defaults (poll 500 ms, woken on commit; 4 runs at once), hook rate limit and breaker off`);
    console.log();
    console.log(`sequential (${sequential.samples} samples, idle queue; start/finish = svc's started_at/finished_at - send time, 1 ms resolution)`);
    console.log(`  202 answered        ${ms(sequential.accepted_ms)}`);
    console.log(`  hook → run start    ${ms(sequential.hook_to_start_ms)}`);
    console.log(`  hook → run finish   ${ms(sequential.hook_to_finish_ms)}`);
    console.log(`sustained (${sustained.runs} hook calls, ${sustained.concurrency} senders at once)`);
    console.log(`  runs/s              ${sustained.runs_per_sec} (first send to last run finished: ${sustained.wall_secs} s); hooks accepted at ${sustained.hook_calls_per_sec}/s`);
    console.log(`  202 answered        ${ms(sustained.accepted_ms)}`);
    console.log(`  hook → run start    ${ms(sustained.hook_to_start_ms)} (queueing included)`);
    console.log(`checked: ${check.succeeded}/${check.runs} runs succeeded, ${check.model_steps} model steps with receipts, ${check.receipts} inference receipts chained into runs, ${check.model_calls} stand-in calls, ${check.open_holds} holds open`);
  }
  if (!ok) {
    console.error(`[bench] failed: ${JSON.stringify(check)}`);
    return 1;
  }
  return 0;
}

process.exit(await main());
