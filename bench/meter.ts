/**
 * Meter throughput on one core: reserve (in memory: no write) + settle (one write transaction) per second,
 * in one process against a real SQLite file in WAL mode, as `svc serve` runs them. Three
 * shapes: no key (session work), a key, and a key three levels down a delegation tree with a
 * capped parent (every level's spend is updated). Prints figures; no thresholds.
 *
 *   bun bench/meter.ts [--ops N] [--json]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/open.ts";
import { openContext } from "../src/open.ts";
import { silentLogger } from "../src/core/log.ts";
import { createAccount } from "../src/domains/accounts/service.ts";
import { delegateKey, mintKey } from "../src/domains/keys/service.ts";
import { setupDataDir } from "../src/setup.ts";
import { log, machineInfo, parseFlags } from "./support.ts";

const { values } = parseFlags({ ops: { type: "string", default: "20000" } }, "Usage: bun bench/meter.ts [--ops N]\n  --ops N             reserve+settle pairs per shape (default 20000)");
const ops = Number(values.ops);
if (!Number.isInteger(ops) || ops < 100) {
  console.error("--ops must be a whole number ≥ 100");
  process.exit(2);
}

const root = mkdtempSync(join(tmpdir(), "svc-bench-meter-"));
try {
  setupDataDir({ configPath: join(root, "svc.toml"), dataDir: root, replica: "off" });
  const ctx = openContext(loadConfig({ dataDir: root }, {}), { log: silentLogger });
  const account = createAccount(ctx).id;
  ctx.ledger.credit(account, 1_000_000_000_000, { type: "deposit" });
  const plain = mintKey(ctx, { accountId: account, breakerPerMinute: 0, scopes: ["*"] }).view.id;
  const top = mintKey(ctx, { accountId: account, breakerPerMinute: 0, monthlyCap: 1_000_000_000_000 }).view.id;
  let deep = top;
  for (let i = 0; i < 3; i++) deep = delegateKey(ctx, deep, {}).view.id;

  const shapes: [string, string | null][] = [
    ["no key", null],
    ["key", plain],
    ["key, depth 3, capped parent", deep],
  ];
  const pair = (keyId: string | null) => ctx.meter.settle(ctx.meter.reserve({ accountId: account, keyId, amount: 1000, kind: "bench", resource: "m" }), 700);
  /**
   * What one pair writes, independent of the machine's speed: WAL frames (pages) appended, with
   * automatic checkpoints off for the pass so the WAL only grows, and the database file's growth.
   */
  const footprint = (keyId: string | null, n = 500) => {
    const pragma = (sql: string) => ctx.db.query<Record<string, number>, []>(sql).get()!;
    pragma("PRAGMA wal_checkpoint(TRUNCATE)");
    const pagesBefore = pragma("PRAGMA page_count").page_count!;
    const auto = pragma("PRAGMA wal_autocheckpoint").wal_autocheckpoint!;
    ctx.db.run("PRAGMA wal_autocheckpoint = 0");
    for (let i = 0; i < n; i++) pair(keyId);
    const frames = pragma("PRAGMA wal_checkpoint(PASSIVE)").log!;
    ctx.db.run(`PRAGMA wal_autocheckpoint = ${auto}`);
    pragma("PRAGMA wal_checkpoint(TRUNCATE)");
    const grown = (pragma("PRAGMA page_count").page_count! - pagesBefore) * pragma("PRAGMA page_size").page_size!;
    return { wal_pages_per_pair: Math.round((frames / n) * 10) / 10, db_bytes_per_pair: Math.round(grown / n) };
  };
  const results = shapes.map(([name, keyId]) => {
    for (let i = 0; i < 200; i++) ctx.meter.settle(ctx.meter.reserve({ accountId: account, keyId, amount: 1000, kind: "bench" }), 700); // warm-up
    const written = footprint(keyId);
    log(`${name}: ${ops} reserve+settle pairs`);
    const t0 = performance.now();
    for (let i = 0; i < ops; i++) pair(keyId);
    const secs = (performance.now() - t0) / 1000;
    return { shape: name, pairs: ops, pairs_per_sec: Math.round(ops / secs), us_per_pair: Math.round((secs / ops) * 1e6 * 10) / 10, ...written };
  });
  ctx.close();
  const info = { ...machineInfo("source tree"), note: "one process, one core; each pair is an in-memory reservation and one write transaction on SQLite (WAL, synchronous=NORMAL)" };
  if (values.json) console.log(JSON.stringify({ machine: info, results }, null, 2));
  else {
    console.log(`svc meter bench: ${info.nproc} CPUs (${info.cpu_model}), bun ${info.bun_version}`);
    console.log(info.note);
    console.log("");
    console.log(`${"shape".padEnd(30)}  ${"pairs/s".padStart(9)}  ${"µs/pair".padStart(8)}  ${"WAL pages/pair".padStart(14)}  ${"db bytes/pair".padStart(13)}`);
    for (const r of results) console.log(`${r.shape.padEnd(30)}  ${String(r.pairs_per_sec).padStart(9)}  ${String(r.us_per_pair).padStart(8)}  ${String(r.wal_pages_per_pair).padStart(14)}  ${String(r.db_bytes_per_pair).padStart(13)}`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
