#!/usr/bin/env bun
/**
 * Code sandboxes through the compiled binary (dist/svc), over HTTP, every execution metered
 * (reserved, settled) and receipted, on this machine's bubblewrap:
 *
 *   one-shot round trip   POST /v1/sandboxes {python, print(1)}, sequential: p50/p99
 *   create → first cmd    POST /v1/sandboxes/sessions, then POST …/exec {python, print(1)}, timed
 *                         from the create request to the exec's answer (the independent
 *                         ComputeSDK method: N runs, p50/p95/p99); the session is deleted after,
 *                         off the clock
 *   executions/s          one-shot print(1) at concurrency 8 for --duration seconds
 *
 * Afterwards it checks that every answered execution was metered: one usage event and one
 * signed receipt of kind sandbox each, and no hold left open.
 *
 * svc is set up with the CLI (account, credit, key with the sandboxes scope; breaker off) and
 * its sandboxes live under the bench's temp root, which the sandbox uid may pass through.
 *
 * Usage: bun bench/sandboxes.ts [--runs 100] [--oneshots 200] [--duration 10] [--concurrency 8] [--json]
 * See bench/README.md.
 */
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { writeConfigFile } from "../src/config.ts";
import { BIN, cli, ensureBinary, log, machineInfo, machineLine, meteredAfterRun, now, parseFlags, percentile, run, runWithServer, svcEnv, SvcServer, svcVersion } from "./support.ts";

const STOP_TIMEOUT_MS = 15_000;
const WARMUP = 20;
const ONE_SHOT = JSON.stringify({ language: "python", code: "print(1)" });

const USAGE = `usage: bun bench/sandboxes.ts [options]

  --runs N            create → first command samples (default 100)
  --oneshots N        one-shot round-trip samples, after ${WARMUP} warm-up runs (default 200)
  --duration SECS     seconds of the executions/s run (default 10)
  --concurrency N     executions in flight for the executions/s run (default 8)`;

function parseOptions() {
  const { values, int } = parseFlags(
    {
      runs: { type: "string", default: "100" },
      oneshots: { type: "string", default: "200" },
      duration: { type: "string", default: "10" },
      concurrency: { type: "string", default: "8" },
    },
    USAGE,
  );
  return {
    runs: int("runs", values.runs, 1, 10_000),
    oneshots: int("oneshots", values.oneshots, 1, 100_000),
    duration: int("duration", values.duration, 1, 600),
    concurrency: int("concurrency", values.concurrency, 1, 256),
    json: values.json,
  };
}

/** Account with credit and a sandboxes key; sandboxes under the bench root. Returns the key. */
async function prepare(server: SvcServer): Promise<string> {
  const dir = server.dataDir;
  // The data dir is 0700; a root gateway's sandboxes run as an unprivileged uid that must pass
  // through the directory holding their workspaces: keep them beside the data dir, under a root
  // the sandbox uid may traverse (it can list nothing there).
  chmodSync(server.root, 0o711);
  await run([BIN, "setup", "--yes", "--data-dir", dir, "--replica", "off"], { env: svcEnv({ SVC_LOG_LEVEL: "warn" }) });
  const account = JSON.parse(await cli(dir, ["accounts", "create", "--wallet", "0x00000000000000000000000000000000005a4d60", "--json"])).id as string;
  await cli(dir, ["admin", "credit", "grant", "--account", account, "--micro-usd", String(1_000_000 * 1_000_000), "--reason", "bench"]);
  const key = JSON.parse(await cli(dir, ["keys", "mint", "--account", account, "--scopes", "sandboxes", "--json"])).key as string;
  writeConfigFile(join(dir, "svc.toml"), { keys: { breaker_micro_usd_per_minute: 0 }, sandboxes: { dir: join(server.root, "sandboxes") } });
  return key;
}

interface Latency {
  samples: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function latency(samples: number[]): Latency {
  const sorted = Float64Array.from(samples).sort();
  return { samples: sorted.length, p50_ms: round2(percentile(sorted, 50)), p95_ms: round2(percentile(sorted, 95)), p99_ms: round2(percentile(sorted, 99)) };
}

async function expectOk(res: Response, what: string): Promise<any> {
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${what} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function main(): Promise<number> {
  const opts = parseOptions();
  await ensureBinary();
  const machine = machineInfo(await svcVersion());
  const server = new SvcServer("svc-bench-sandboxes-", STOP_TIMEOUT_MS);
  let key = "";
  try {
    key = await prepare(server);
  } catch (err) {
    console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    await server.stop();
    return 1;
  }
  let stopLoad = false;
  const outcome = await runWithServer(server, ["--replica", "off"], () => (stopLoad = true), async (interrupted) => {
    const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
    const oneShot = async () => {
      const body = await expectOk(await fetch(`${server.url}/v1/sandboxes`, { method: "POST", headers, body: ONE_SHOT }), "POST /v1/sandboxes");
      if (body.stdout !== "1\n" || !body.receipt) throw new Error(`unexpected result: ${JSON.stringify(body).slice(0, 300)}`);
    };

    log(`one-shot round trip: ${WARMUP} warm-up, then ${opts.oneshots} sequential runs`);
    for (let i = 0; i < WARMUP; i++) await oneShot();
    const oneShots: number[] = [];
    for (let i = 0; i < opts.oneshots && !interrupted(); i++) {
      const t0 = now();
      await oneShot();
      oneShots.push(now() - t0);
    }

    log(`create → first command: ${opts.runs} sessions`);
    const firsts: number[] = [];
    for (let i = 0; i < opts.runs && !interrupted(); i++) {
      const t0 = now();
      const session = await expectOk(await fetch(`${server.url}/v1/sandboxes/sessions`, { method: "POST", headers, body: JSON.stringify({ language: "python" }) }), "POST /v1/sandboxes/sessions");
      const ran = await expectOk(
        await fetch(`${server.url}/v1/sandboxes/sessions/${session.id}/exec`, { method: "POST", headers, body: JSON.stringify({ code: "print(1)" }) }),
        "POST …/exec",
      );
      firsts.push(now() - t0);
      if (ran.stdout !== "1\n") throw new Error(`unexpected exec result: ${JSON.stringify(ran).slice(0, 300)}`);
      await expectOk(await fetch(`${server.url}/v1/sandboxes/sessions/${session.id}`, { method: "DELETE", headers }), "DELETE session");
    }

    log(`executions/s: concurrency ${opts.concurrency} for ${opts.duration} s`);
    let done = 0;
    let errors = 0;
    const deadline = now() + opts.duration * 1000;
    const t0 = now();
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (now() < deadline && !stopLoad && !interrupted()) {
          try {
            await oneShot();
            done++;
          } catch {
            errors++;
          }
        }
      }),
    );
    const elapsed = (now() - t0) / 1000;

    // Every answered execution metered: a usage event and a receipt each, nothing still held.
    const metered = await meteredAfterRun(join(server.dataDir, "svc.db"), "sandbox");
    const expected = WARMUP + oneShots.length + firsts.length + done;
    return { oneShot: latency(oneShots), createToFirst: latency(firsts), throughput: { concurrency: opts.concurrency, executions: done, errors, executions_per_sec: round2(done / elapsed) }, metered, expected };
  });
  if (!outcome.ok) return outcome.code;
  const r = outcome.value;
  const targets = { one_shot_p50_ms: 60, one_shot_p99_ms: 150, create_to_first_p50_ms: 80 };
  if (opts.json) {
    console.log(JSON.stringify({ machine, one_shot: r.oneShot, create_to_first_command: r.createToFirst, throughput: r.throughput, metered: r.metered, answered_executions: r.expected, targets }, null, 2));
  } else {
    console.log(`svc sandboxes bench: ${machine.svc_version}`);
    console.log(`machine:   ${machineLine(machine)}`);
    console.log(`run:       through HTTP to dist/svc; python print(1); every execution reserved, settled and signed`);
    console.log();
    console.log(`one-shot round trip      p50 ${r.oneShot.p50_ms} ms  p99 ${r.oneShot.p99_ms} ms  (${r.oneShot.samples} runs; targets ≤ ${targets.one_shot_p50_ms} / ≤ ${targets.one_shot_p99_ms})`);
    console.log(`create → first command   p50 ${r.createToFirst.p50_ms} ms  p95 ${r.createToFirst.p95_ms} ms  p99 ${r.createToFirst.p99_ms} ms  (${r.createToFirst.samples} runs; target p50 ≤ ${targets.create_to_first_p50_ms})`);
    console.log(`executions/s at ${r.throughput.concurrency}        ${r.throughput.executions_per_sec} (${r.throughput.executions} in all, errors: ${r.throughput.errors})`);
    console.log(`metered in the database  ${r.metered.usage_events} usage events, ${r.metered.receipts} receipts of kind sandbox for ${r.expected} answered executions; ${r.metered.open_holds} holds left open`);
  }
  const meteredAll = r.metered.usage_events === r.expected && r.metered.receipts === r.expected && r.metered.open_holds === 0;
  if (!meteredAll) console.error("[bench] failed: not every answered execution was metered and receipted exactly once");
  return meteredAll ? 0 : 1;
}

process.exit(await main());
