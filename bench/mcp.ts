#!/usr/bin/env bun
/**
 * The MCP gateway's added latency: the same tools/call (JSON-RPC over Streamable HTTP, JSON
 * mode) sent straight to a local MCP upstream ("direct") and through svc's gateway,
 * POST /v1/mcp/servers/:id ("gateway"), where every call is authenticated, allowlist-checked,
 * reserved, forwarded over the pooled SDK client with the sealed credential, settled as an
 * mcp_call usage event and receipted (a signed receipt with its action attestation in _meta).
 * Prints p50/p99 at concurrency 1 and 16 and the added latency, then checks that every gateway
 * call was metered and receipted.
 *
 * Three processes: the upstream (an SDK McpServer, test/support/mcp-upstream.ts, in a child bun
 * process), svc (dist/svc serve), and this one sending the load (keep-alive fetch loops). svc is
 * set up as an operator and a person would: `svc setup`, a SIWE sign-in (viem), an API key and
 * the MCP server registered over HTTP, credit granted with the CLI, the breaker off.
 *
 * Usage: bun bench/mcp.ts [--duration 5] [--json]
 */
import { join } from "node:path";
import { writeConfigFile } from "../src/config.ts";
import { type LoadRow, loadRow, runFetchLoops } from "./load.ts";
import { BIN, cli, ensureBinary, log, machineInfo, meteredAfterRun, parseFlags, ROOT, round3, run, runWithServer, signIn, svcEnv, SvcServer, svcVersion } from "./support.ts";

const STOP_TIMEOUT_MS = 10_000;
const WARMUP_SECS = 1;
const UPSTREAM_SECRET = "bench-upstream-credential";
const PRICE = 1000;
const CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "benchmarks measure; they do not judge" } } });
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

const USAGE = `usage: bun bench/mcp.ts [options]

  --duration SECS   measured seconds per run, after a ${WARMUP_SECS} s warm-up (default 5)`;

/** The upstream MCP server in a process of its own; resolves with its URL. */
async function startUpstreamProcess(): Promise<{ url: string; stop(): void }> {
  const entry = `import { serveUpstream } from ${JSON.stringify(join(ROOT, "test/support/mcp-upstream.ts"))};
const u = serveUpstream({ requireToken: ${JSON.stringify(UPSTREAM_SECRET)} });
console.log(u.url);`;
  const proc = Bun.spawn([process.execPath, "-e", entry], { stdout: "pipe", stderr: "inherit", stdin: "ignore" });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  const url = new TextDecoder().decode(value).trim();
  if (!url.startsWith("http://")) throw new Error(`the upstream did not start: ${url}`);
  log(`upstream MCP server (pid ${proc.pid}) at ${url}`);
  return { url, stop: () => proc.kill("SIGTERM") };
}

/** Sign in with a fresh wallet (SIWE), mint an API key, register the upstream; returns the key and the gateway endpoint. */
async function prepare(server: SvcServer, upstreamUrl: string): Promise<{ key: string; endpoint: string }> {
  const { session, accountId: account_id } = await signIn(server.url);
  const auth = { authorization: `Bearer ${session}`, "content-type": "application/json" };
  await cli(server.dataDir, ["admin", "credit", "grant", "--account", account_id, "--micro-usd", String(1_000_000 * 1_000_000), "--reason", "bench"]);
  const key = (await (await fetch(`${server.url}/v1/keys`, { method: "POST", headers: auth, body: JSON.stringify({ name: "bench", scopes: ["mcp"] }) })).json()) as { key: string };
  const registered = await fetch(`${server.url}/v1/mcp-servers`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ name: "bench-upstream", url: upstreamUrl, credential: UPSTREAM_SECRET, allowed_tools: ["echo"], price_micro_usd_per_call: PRICE }),
  });
  if (registered.status !== 201) throw new Error(`registering the upstream failed: ${registered.status} ${await registered.text()}`);
  const { endpoint } = (await registered.json()) as { endpoint: string };
  return { key: key.key, endpoint };
}

async function main(): Promise<number> {
  const { values, fail } = parseFlags({ duration: { type: "string", default: "5" } }, USAGE);
  const duration = Number(values.duration);
  if (!Number.isInteger(duration) || duration < 1 || duration > 300) fail(`--duration must be whole seconds from 1 to 300, got "${values.duration}"`);
  await ensureBinary();
  const machine = machineInfo(await svcVersion());
  const upstream = await startUpstreamProcess();
  const server = new SvcServer("svc-bench-mcp-", STOP_TIMEOUT_MS);
  // Before `svc serve` starts: setup, then the bench's settings (a benchmark spends more per minute than the default breaker allows).
  await run([BIN, "setup", "--yes", "--data-dir", server.dataDir, "--replica", "off", "--allow-private-webhooks"], { env: svcEnv({ SVC_LOG_LEVEL: "warn" }) });
  writeConfigFile(join(server.dataDir, "svc.toml"), { keys: { breaker_micro_usd_per_minute: 0 } });

  const outcome = await runWithServer(server, ["--replica", "off", "--allow-private-webhooks"], () => upstream.stop(), async () => {
    const { key, endpoint } = await prepare(server, upstream.url);
    const gateway = () => fetch(endpoint, { method: "POST", headers: { ...MCP_HEADERS, authorization: `Bearer ${key}` }, body: CALL });
    const direct = () => fetch(upstream.url, { method: "POST", headers: { ...MCP_HEADERS, authorization: `Bearer ${UPSTREAM_SECRET}` }, body: CALL });
    const probe = (await (await gateway()).json()) as { result?: { _meta?: Record<string, unknown> }; error?: unknown };
    if (!probe.result?._meta?.["svc/receipt"]) throw new Error(`the gateway's probe call carries no receipt: ${JSON.stringify(probe)}`);

    const rows: LoadRow[] = [];
    for (const concurrency of [1, 16]) {
      for (const [target, send] of [["direct", direct], ["gateway", gateway]] as const) {
        await runFetchLoops(send, concurrency, WARMUP_SECS);
        const m = await runFetchLoops(send, concurrency, duration);
        rows.push(loadRow(target, concurrency, m));
        log(`${target} c=${concurrency}: ${m.requests} calls, p50 ${m.p50.toFixed(3)} ms, p99 ${m.p99.toFixed(3)} ms`);
      }
    }
    const counted = await meteredAfterRun(join(server.dataDir, "svc.db"), "mcp_call");
    return { rows, metered: counted.usage_events, receipts: counted.receipts, held: counted.open_holds };
  });
  upstream.stop();
  if (!outcome.ok) return outcome.code;
  const { rows, metered, receipts, held } = outcome.value;
  const at = (target: LoadRow["target"], c: number) => rows.find((r) => r.target === target && r.concurrency === c)!;
  const added = [1, 16].map((c) => ({ concurrency: c, p50_ms: round3(at("gateway", c).p50_ms - at("direct", c).p50_ms), p99_ms: round3(at("gateway", c).p99_ms - at("direct", c).p99_ms) }));
  const sent = rows.filter((r) => r.target === "gateway").reduce((s, r) => s + r.requests, 0);
  if (values.json) {
    console.log(JSON.stringify({ machine, duration_secs: duration, rows, added, usage_events: metered, receipts, open_holds: held, gateway_calls_measured: sent }, null, 2));
  } else {
    console.log(`MCP gateway: tools/call through svc vs straight to the upstream (${duration} s per run, keep-alive fetch loops)`);
    console.log(`machine: ${JSON.stringify(machine)}`);
    console.log("target   conc  requests   req/s   p50 ms   p99 ms  errors");
    for (const r of rows) console.log(`${r.target.padEnd(8)} ${String(r.concurrency).padStart(4)} ${String(r.requests).padStart(9)} ${String(r.requests_per_sec).padStart(7)} ${r.p50_ms.toFixed(3).padStart(8)} ${r.p99_ms.toFixed(3).padStart(8)} ${String(r.errors).padStart(7)}`);
    for (const a of added) console.log(`added by the gateway at concurrency ${a.concurrency}: p50 ${a.p50_ms.toFixed(3)} ms, p99 ${a.p99_ms.toFixed(3)} ms`);
    console.log(`metered in the database: ${metered} mcp_call usage events, ${receipts} receipts (warm-ups and probe included; ${sent} measured), ${held} holds left open`);
  }
  const errors = rows.reduce((s, r) => s + r.errors, 0);
  if (errors || metered < sent || receipts < sent || held) {
    console.error(`[bench] failed: ${errors} errors, ${metered} usage events and ${receipts} receipts for ${sent} measured gateway calls, ${held} holds open`);
    return 1;
  }
  return 0;
}

process.exit(await main());
