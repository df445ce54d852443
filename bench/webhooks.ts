/**
 * Webhook deliveries per second to a local receiver, in process: a real SQLite file (WAL), the
 * real scheduler loop on the wall clock, the real dispatcher (fan-out, attempt jobs, signing,
 * fetch with the outbound guard off), and a Bun.serve receiver on 127.0.0.1 that checks every
 * signature. N events are committed one transaction each, as features emit them; the figure is
 * from the first commit to the last delivery recorded as delivered. Run once per
 * scheduler.concurrency value (attempts in flight at once). Prints figures; no thresholds.
 *
 *   bun bench/webhooks.ts [--events N] [--concurrency 4,16] [--json]
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/open.ts";
import { openContext } from "../src/open.ts";
import { silentLogger } from "../src/core/log.ts";
import { createAccount } from "../src/domains/accounts/service.ts";
import { registerWebhookJobs } from "../src/domains/webhooks/delivery.ts";
import { createWebhook } from "../src/domains/webhooks/service.ts";
import { setupDataDir } from "../src/setup.ts";
import { log, machineInfo, parseFlags, percentile } from "./support.ts";

const { values, fail } = parseFlags(
  { events: { type: "string", default: "5000" }, concurrency: { type: "string", default: "4,16" } },
  `Usage: bun bench/webhooks.ts [--events N] [--concurrency LIST]
  --events N          events committed per run (default 5000)
  --concurrency LIST  scheduler.concurrency values to run with, comma-separated (default 4,16; svc's default is 4)`,
);
const events = Number(values.events);
if (!Number.isInteger(events) || events < 100) fail("--events must be a whole number ≥ 100");
const levels = String(values.concurrency).split(",").map(Number);
if (!levels.length || levels.some((c) => !Number.isInteger(c) || c < 1 || c > 64)) fail("--concurrency takes whole numbers from 1 to 64");

interface Result {
  concurrency: number;
  events: number;
  secs: number;
  events_per_sec: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  bad_signatures: number;
}

async function runOnce(concurrency: number): Promise<Result> {
  const root = mkdtempSync(join(tmpdir(), "svc-bench-webhooks-"));
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  let secret = "";
  let badSignatures = 0;
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = Buffer.from(await req.arrayBuffer());
      const expected = createHmac("sha256", secret).update(body).digest();
      const given = Buffer.from((req.headers.get("x-svc-signature") ?? "").replace(/^sha256=/, ""), "hex");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) badSignatures++;
      const t0 = sent.get(req.headers.get("x-svc-event-id") ?? "");
      if (t0 !== undefined) latencies.push(performance.now() - t0);
      return new Response("ok");
    },
  });
  try {
    setupDataDir({ configPath: join(root, "svc.toml"), dataDir: root, replica: "off" });
    const config = loadConfig({ dataDir: root }, {});
    config.scheduler.concurrency = concurrency;
    config.webhooks.allow_private = true;
    const ctx = openContext(config, { log: silentLogger });
    const account = createAccount(ctx).id;
    const hook = await createWebhook(ctx, { accountId: account, url: `http://127.0.0.1:${receiver.port}/bench`, events: ["*"] });
    secret = hook.secret;
    registerWebhookJobs(ctx);
    ctx.scheduler.start();
    const delivered = () => ctx.db.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered'").get()!.n;

    log(`concurrency ${concurrency}: committing ${events} events`);
    const t0 = performance.now();
    for (let i = 0; i < events; i++) {
      const e = ctx.tx.run(() => ctx.outbox.emit("key_created", account, { key_id: `key_bench${i}`, kind: "standard", scopes: ["*"] }));
      sent.set(e.id, performance.now());
      // Let the dispatcher run between commits, as it would between requests.
      if (i % 50 === 49) await new Promise((r) => setImmediate(r));
    }
    const deadline = performance.now() + 300_000;
    while (delivered() < events) {
      if (performance.now() > deadline) throw new Error(`only ${delivered()} of ${events} delivered after 300 s`);
      await Bun.sleep(5);
    }
    const secs = (performance.now() - t0) / 1000;
    await ctx.scheduler.stop();
    ctx.close();
    const sorted = Float64Array.from(latencies).sort();
    return {
      concurrency,
      events,
      secs: Math.round(secs * 100) / 100,
      events_per_sec: Math.round(events / secs),
      latency_p50_ms: Math.round(percentile(sorted, 50)),
      latency_p99_ms: Math.round(percentile(sorted, 99)),
      bad_signatures: badSignatures,
    };
  } finally {
    receiver.stop(true);
    rmSync(root, { recursive: true, force: true });
  }
}

const results: Result[] = [];
for (const c of levels) results.push(await runOnce(c));
if (results.some((r) => r.bad_signatures)) {
  console.error("[bench] failed: the receiver saw bad signatures");
  process.exit(1);
}
const info = {
  ...machineInfo("source tree"),
  note: "in process: SQLite (WAL) + the scheduler loop + fetch to a Bun.serve receiver on 127.0.0.1 that verifies each HMAC, all sharing the machine",
};
if (values.json) console.log(JSON.stringify({ machine: info, results }, null, 2));
else {
  console.log(`svc webhooks bench: ${info.nproc} CPUs (${info.cpu_model}), bun ${info.bun_version}`);
  console.log(info.note);
  console.log("latency: commit → receiver, for a burst of events queued at once (mostly time waiting in the queue)");
  console.log("");
  console.log(`${"concurrency".padEnd(11)}  ${"events".padStart(7)}  ${"secs".padStart(6)}  ${"events/s".padStart(9)}  ${"p50 ms".padStart(7)}  ${"p99 ms".padStart(7)}`);
  for (const r of results) {
    console.log(`${String(r.concurrency).padEnd(11)}  ${String(r.events).padStart(7)}  ${String(r.secs).padStart(6)}  ${String(r.events_per_sec).padStart(9)}  ${String(r.latency_p50_ms).padStart(7)}  ${String(r.latency_p99_ms).padStart(7)}`);
  }
}
