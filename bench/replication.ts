#!/usr/bin/env bun
/**
 * Replication lag of the compiled binary (dist/svc) under a steady write load: for each
 * committed row, the seconds between its commit and the moment a restore from the replica
 * contains it.
 *
 * Sets up a throwaway root dir with a data dir and a local file:// replica, starts
 * `dist/svc serve` (which runs `litestream replicate` as its child), then concurrently
 *   - writes one denylist row per request (POST /v1/admin/denylist) at a steady rate, recording
 *     when each 201 arrived, and
 *   - restores the replica to a temp file every few hundred ms (`litestream restore`), noting
 *     which rows each restore holds for the first time and when that restore started.
 * It prints the lag percentiles, stops svc and its Litestream by PID, and removes the root dir.
 * It only reports numbers: no thresholds, no pass/fail.
 *
 * Usage: bun bench/replication.ts [--rate 20] [--duration 30] [--probe-ms 250] [--json]
 * See bench/README.md.
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, log, machineInfo, machineLine, now, parseFlags, percentile, run, runWithServer, sleep, SvcServer, svcVersion } from "./support.ts";

/** How long to wait for the replica's first backup before the writer starts. */
const FIRST_BACKUP_TIMEOUT_MS = 15_000;
/** After the writer stops, keep probing at most this long for rows not seen yet. */
const DRAIN_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const RESTORE_TIMEOUT_MS = 30_000;
const WRITE_TIMEOUT_MS = 10_000;
/** Requests in flight at once; when svc falls this far behind, the writer waits (the achieved rate drops). */
const MAX_IN_FLIGHT = 256;

// ---------------------------------------------------------------------------------------------
// Arguments

const USAGE = `usage: bun bench/replication.ts [options]

  --rate N            writes per second (default 20)
  --duration SECS     seconds of writing (default 30)
  --probe-ms MS       start a restore from the replica every MS milliseconds (default 250)`;

function parseOptions() {
  const { values, fail } = parseFlags(
    {
      rate: { type: "string", default: "20" },
      duration: { type: "string", default: "30" },
      "probe-ms": { type: "string", default: "250" },
    },
    USAGE,
  );
  const rate = Number(values.rate);
  const duration = Number(values.duration);
  const probeMs = Number(values["probe-ms"]);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 5000) fail(`--rate must be a number of writes per second above 0 and up to 5000, got "${values.rate}"`);
  if (!Number.isInteger(duration) || duration < 1 || duration > 3600) fail(`--duration must be whole seconds from 1 to 3600, got "${values.duration}"`);
  if (!Number.isInteger(probeMs) || probeMs < 10 || probeMs > 60_000) fail(`--probe-ms must be whole milliseconds from 10 to 60000, got "${values["probe-ms"]}"`);
  return { rate, duration, probeMs, json: values.json };
}

// ---------------------------------------------------------------------------------------------
// Small helpers

function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
}

/** Rounded to `digits` decimals; NaN (no samples) becomes null so JSON stays valid. */
function round(n: number, digits = 3): number | null {
  if (!Number.isFinite(n)) return null;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

const randomHex64 = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");

// ---------------------------------------------------------------------------------------------
// Writer and prober

interface WriterResult {
  /** sha256 → performance.now() when its 201 arrived. */
  commits: Map<string, number>;
  sent: number;
  errors: number;
  /** Non-201 answers by status, transport errors as "error". */
  errorKinds: Record<string, number>;
  /** Response times of the 201s, ms. */
  responseMs: number[];
  startedAt: number;
  firstCommitAt: number;
  lastCommitAt: number;
}

class Writer {
  readonly commits = new Map<string, number>();
  private readonly responseMs: number[] = [];
  private readonly errorKinds: Record<string, number> = {};
  private errors = 0;
  private sent = 0;
  private aborted = false;
  finishedAt: number | null = null;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly rate: number,
    private readonly durationSecs: number,
  ) {}

  abort(): void {
    this.aborted = true;
  }

  private async writeOne(sha256: string): Promise<void> {
    const t0 = now();
    try {
      const res = await fetch(`${this.url}/v1/admin/denylist`, {
        method: "POST",
        headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json" },
        body: JSON.stringify({ sha256, reason: "bench" }),
        signal: AbortSignal.timeout(WRITE_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      const t1 = now();
      if (res.status === 201) {
        this.commits.set(sha256, t1);
        this.responseMs.push(t1 - t0);
      } else {
        this.errors++;
        this.errorKinds[String(res.status)] = (this.errorKinds[String(res.status)] ?? 0) + 1;
      }
    } catch {
      this.errors++;
      this.errorKinds.error = (this.errorKinds.error ?? 0) + 1;
    }
  }

  /** Open loop: request i is sent at start + i / rate, without waiting for the ones before it. */
  async run(): Promise<WriterResult> {
    const total = Math.max(1, Math.round(this.rate * this.durationSecs));
    const intervalMs = 1000 / this.rate;
    const inFlight = new Set<Promise<void>>();
    const startedAt = now();
    for (let i = 0; i < total && !this.aborted; i++) {
      const due = startedAt + i * intervalMs;
      const wait = due - now();
      if (wait > 1) await sleep(wait);
      while (inFlight.size >= MAX_IN_FLIGHT && !this.aborted) await Promise.race(inFlight);
      if (this.aborted) break;
      const p = this.writeOne(randomHex64()).finally(() => inFlight.delete(p));
      inFlight.add(p);
      this.sent++;
    }
    await Promise.all(inFlight);
    this.finishedAt = now();
    let firstCommitAt = Number.POSITIVE_INFINITY;
    let lastCommitAt = startedAt;
    for (const t of this.commits.values()) {
      firstCommitAt = Math.min(firstCommitAt, t);
      lastCommitAt = Math.max(lastCommitAt, t);
    }
    return {
      commits: this.commits,
      sent: this.sent,
      errors: this.errors,
      errorKinds: this.errorKinds,
      responseMs: this.responseMs,
      startedAt,
      firstCommitAt,
      lastCommitAt,
    };
  }
}

interface ProbeResult {
  /** sha256 → performance.now() when the first restore that held it started. */
  seen: Map<string, number>;
  probes: number;
  failed: number;
  firstFailure: string | null;
  restoreMs: number[];
  /** Gaps between consecutive restore starts, ms. */
  gapsMs: number[];
}

class Prober {
  readonly seen = new Map<string, number>();
  private readonly restoreMs: number[] = [];
  private readonly gapsMs: number[] = [];
  private probes = 0;
  private failed = 0;
  private firstFailure: string | null = null;
  private aborted = false;
  private active: ReturnType<typeof Bun.spawn> | null = null;
  private readonly out: string;

  constructor(
    private readonly litestream: string,
    private readonly replicaUrl: string,
    private readonly probeDir: string,
    private readonly intervalMs: number,
  ) {
    mkdirSync(probeDir, { recursive: true });
    this.out = join(probeDir, "restore.db");
  }

  abort(): void {
    this.aborted = true;
    this.active?.kill("SIGKILL");
  }

  /** One `litestream restore` into the temp file; its sha256 values, or an error message. */
  async restoreOnce(): Promise<{ ok: true; rows: string[] } | { ok: false; error: string }> {
    for (const suffix of ["", "-wal", "-shm", ".tmp"]) rmSync(this.out + suffix, { force: true });
    const proc = Bun.spawn([this.litestream, "restore", "-o", this.out, this.replicaUrl], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    this.active = proc;
    const timer = setTimeout(() => proc.kill("SIGKILL"), RESTORE_TIMEOUT_MS);
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    this.active = null;
    if (code !== 0 || !existsSync(this.out)) {
      const text = (stderr + stdout).trim().split("\n").filter(Boolean).at(-1) ?? `exit code ${code}`;
      return { ok: false, error: code !== 0 ? text : `restore exited 0 but wrote no file: ${text}` };
    }
    let db: Database | null = null;
    try {
      db = new Database(this.out, { readonly: true });
      const rows = db.query<{ sha256: string }, []>("SELECT sha256 FROM denylist").all().map((r) => r.sha256);
      return { ok: true, rows };
    } catch (err) {
      return { ok: false, error: `reading the restored database: ${err instanceof Error ? err.message : String(err)}` };
    } finally {
      db?.close();
    }
  }

  /** Waits (bounded) until the replica holds a first backup that restores, so probing starts from a working replica. */
  async waitForFirstBackup(timeoutMs: number): Promise<void> {
    const deadline = now() + timeoutMs;
    let last = "";
    while (now() < deadline && !this.aborted) {
      const r = await this.restoreOnce();
      if (r.ok) return;
      last = r.error;
      await sleep(200);
    }
    if (this.aborted) throw new Error("interrupted");
    throw new Error(`no restorable backup in the replica after ${timeoutMs / 1000} s: ${last}`);
  }

  /**
   * Restores every `intervalMs` (the next one starts right away when a restore overran) until
   * `done()` says so or the run is aborted. Every row is tracked, including one whose 201 is
   * still on its way (only the bench writes to the denylist of this throwaway instance).
   */
  async run(done: () => boolean): Promise<ProbeResult> {
    let prevStart: number | null = null;
    let next = now();
    while (!this.aborted && !done()) {
      const wait = next - now();
      if (wait > 0) await sleep(wait);
      if (this.aborted) break;
      const start = now();
      if (prevStart !== null) this.gapsMs.push(start - prevStart);
      prevStart = start;
      next = start + this.intervalMs;
      const r = await this.restoreOnce();
      if (this.aborted) break;
      this.probes++;
      if (!r.ok) {
        this.failed++;
        if (!this.firstFailure) {
          this.firstFailure = r.error;
          log(`warning: a restore failed (counted, probing goes on): ${r.error}`);
        }
        continue;
      }
      this.restoreMs.push(now() - start);
      for (const sha of r.rows) if (!this.seen.has(sha)) this.seen.set(sha, start);
    }
    for (const suffix of ["", "-wal", "-shm", ".tmp"]) rmSync(this.out + suffix, { force: true });
    return {
      seen: this.seen,
      probes: this.probes,
      failed: this.failed,
      firstFailure: this.firstFailure,
      restoreMs: this.restoreMs,
      gapsMs: this.gapsMs,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Output

/** backup.sync_interval_secs and backup.litestream from the svc.toml setup wrote (svc's defaults when absent). */
function readSvcToml(dataDir: string): { syncIntervalSecs: number; litestream: string } {
  let backup: { sync_interval_secs?: unknown; litestream?: unknown } = {};
  try {
    const doc = Bun.TOML.parse(readFileSync(join(dataDir, "svc.toml"), "utf8")) as { backup?: typeof backup };
    backup = doc.backup ?? {};
  } catch (err) {
    log(`warning: cannot read svc.toml (${err instanceof Error ? err.message : String(err)}); assuming the defaults`);
  }
  return {
    syncIntervalSecs: typeof backup.sync_interval_secs === "number" ? backup.sync_interval_secs : 1,
    litestream: typeof backup.litestream === "string" && backup.litestream ? backup.litestream : "litestream",
  };
}

/** Litestream's WAL monitor interval from the litestream.yml svc generated, when it says. */
function readMonitorInterval(dataDir: string): string | null {
  try {
    const doc = Bun.YAML.parse(readFileSync(join(dataDir, "litestream.yml"), "utf8")) as { dbs?: { "monitor-interval"?: unknown }[] };
    const v = doc.dbs?.[0]?.["monitor-interval"];
    return typeof v === "string" ? v : null;
  } catch {
    return null;
  }
}

function resolveProgram(name: string): string | null {
  if (name.includes("/")) return existsSync(name) ? name : null;
  return Bun.which(name);
}

function table(rows: [string, string][]): string {
  const w = Math.max(...rows.map(([k]) => k.length));
  const v = Math.max(...rows.map(([, val]) => val.length));
  return [`${"figure".padEnd(w)}  ${"value".padStart(v)}`, `${"-".repeat(w)}  ${"-".repeat(v)}`, ...rows.map(([k, val]) => `${k.padEnd(w)}  ${val.padStart(v)}`)].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  const opts = parseOptions();

  const litestreamOnPath = Bun.which("litestream");
  if (!litestreamOnPath) {
    console.error("[bench] litestream is not on PATH; install.sh installs the pinned v0.5.18 (/usr/local/bin/litestream)");
    return 1;
  }

  await ensureBinary();
  const svcVersionText = await svcVersion();

  // Data dir and replica both live under the server's temp root, so removing it removes both.
  const server = new SvcServer("svc-bench-repl-", STOP_TIMEOUT_MS);
  const replicaUrl = `file://${join(server.root, "replica")}`;
  const adminToken = `svcadm_bench_${randomHex64().slice(0, 32)}`;
  let writer: Writer | null = null;
  let prober: Prober | null = null;
  const abort = () => {
    writer?.abort();
    prober?.abort();
  };
  const outcome = await runWithServer(server, ["--admin-token", adminToken, "--replica", replicaUrl], abort, async (interrupted) => {
    const litestreamPids = server.litestreamPids;
    if (litestreamPids.length) log(`svc's litestream runs as pid ${litestreamPids.join(", ")}`);
    else log("warning: no litestream.pid in the data dir; svc may not be replicating");
    const toml = readSvcToml(server.dataDir);
    const litestreamPath = resolveProgram(toml.litestream) ?? litestreamOnPath;
    const lsVersion = (await run([litestreamPath, "version"])).stdout.trim() || "unknown";
    const monitorInterval = readMonitorInterval(server.dataDir);
    const machine = { ...machineInfo(svcVersionText), litestream_version: lsVersion, litestream_path: litestreamPath };

    prober = new Prober(litestreamPath, replicaUrl, join(server.root, "probe"), opts.probeMs);
    const p = prober;
    log("waiting for the replica's first backup");
    await p.waitForFirstBackup(FIRST_BACKUP_TIMEOUT_MS);

    log(`writing ${opts.rate}/s for ${opts.duration} s while restoring the replica every ${opts.probeMs} ms`);
    writer = new Writer(server.url, adminToken, opts.rate, opts.duration);
    const w = writer;
    let writerDone = false;
    let drainStartedAt = 0;
    let svcDied = false;
    const done = () => {
      if (server.exited) {
        svcDied = true;
        w.abort();
        return true;
      }
      if (!writerDone) return false;
      if (now() - drainStartedAt > DRAIN_TIMEOUT_MS) return true;
      for (const sha of w.commits.keys()) if (!p.seen.has(sha)) return false;
      return true;
    };
    const probing = p.run(done);
    const wr = await w.run();
    writerDone = true;
    drainStartedAt = now();
    if (!interrupted()) log(`writer done: ${wr.commits.size} rows committed; probing until the replica holds all of them (at most ${DRAIN_TIMEOUT_MS / 1000} s)`);
    const pr = await probing;
    const drainMs = now() - drainStartedAt;
    if (interrupted()) throw new Error("interrupted");
    if (svcDied) throw new Error(`svc serve exited during the run:\n${server.logTail}`);
    if (wr.commits.size === 0) throw new Error(`no write was committed (${wr.errors} errors: ${JSON.stringify(wr.errorKinds)})`);

    server.noteLitestreamPid();
    let replication: unknown = null;
    try {
      const res = await fetch(`${server.url}/v1/status`, { signal: AbortSignal.timeout(5000) });
      replication = ((await res.json()) as { replication?: unknown }).replication ?? null;
    } catch (err) {
      log(`warning: GET /v1/status failed: ${err instanceof Error ? err.message : String(err)}`);
    }

    const lagsList: number[] = [];
    let neverSeen = 0;
    for (const [sha, committedAt] of wr.commits) {
      const seenAt = pr.seen.get(sha);
      if (seenAt === undefined) neverSeen++;
      else lagsList.push((seenAt - committedAt) / 1000);
    }
    const lags = Float64Array.from(lagsList).sort();
    // Commits per second between the first and the last 201 (n rows span n − 1 intervals).
    const commitSpanSecs = (wr.lastCommitAt - wr.firstCommitAt) / 1000;
    const achievedRate = wr.commits.size > 1 && commitSpanSecs > 0 ? (wr.commits.size - 1) / commitSpanSecs : Number.NaN;
    const sortedResp = Float64Array.from(wr.responseMs).sort();
    return {
      machine,
      litestream: {
        sync_interval_secs: toml.syncIntervalSecs,
        monitor_interval: monitorInterval,
        replica: "file:// (local directory, same disk)",
      },
      target_rate_per_sec: opts.rate,
      duration_secs: opts.duration,
      probe_interval_ms: opts.probeMs,
      rows: wr.commits.size,
      rows_seen: lags.length,
      rows_never_seen: neverSeen,
      writes_sent: wr.sent,
      write_errors: wr.errors,
      write_error_kinds: wr.errorKinds,
      write_rate_per_sec: round(achievedRate, 1),
      write_response_p50_ms: round(percentile(sortedResp, 50), 2),
      write_response_p99_ms: round(percentile(sortedResp, 99), 2),
      write_response_max_ms: round(sortedResp.length ? sortedResp[sortedResp.length - 1]! : Number.NaN, 2),
      lag_p50_secs: round(percentile(lags, 50)),
      lag_p90_secs: round(percentile(lags, 90)),
      lag_p99_secs: round(percentile(lags, 99)),
      lag_max_secs: round(lags.length ? lags[lags.length - 1]! : Number.NaN),
      lag_min_secs: round(lags.length ? lags[0]! : Number.NaN),
      probes: pr.probes,
      probes_failed: pr.failed,
      probe_first_failure: pr.firstFailure,
      probe_gap_mean_ms: round(mean(pr.gapsMs), 1),
      probe_gap_max_ms: round(pr.gapsMs.length ? Math.max(...pr.gapsMs) : Number.NaN, 1),
      restore_mean_ms: round(mean(pr.restoreMs), 1),
      restore_max_ms: round(pr.restoreMs.length ? Math.max(...pr.restoreMs) : Number.NaN, 1),
      drain_secs: round(drainMs / 1000, 2),
      status_replication: replication,
    };
  });
  if (!outcome.ok) return outcome.code;

  const f = outcome.value;
  const explanation =
    `lag = start of the first restore from the replica that holds the row − arrival of the row's 201: how long a committed row is missing from the replica ` +
    `(what a crash at that moment would lose). It overstates the true lag by at most one probe gap (max ${f.probe_gap_max_ms} ms here) ` +
    `and understates it by at most one restore plus one write response (max ${f.restore_max_ms} ms + ${f.write_response_max_ms} ms here).`;

  if (opts.json) {
    console.log(JSON.stringify({ ...f, note: explanation }, null, 2));
    return 0;
  }
  const s = (n: number | null, unit = "") => (n === null ? "n/a" : `${n}${unit}`);
  console.log(`svc replication lag bench: ${f.machine.svc_version}`);
  console.log(`machine:    ${machineLine(f.machine)}`);
  console.log(
    `litestream: ${f.machine.litestream_version} (${f.machine.litestream_path}), sync interval ${f.litestream.sync_interval_secs} s (backup.sync_interval_secs)` +
      `${f.litestream.monitor_interval ? `, monitor interval ${f.litestream.monitor_interval}` : ""}, replica ${f.litestream.replica}`,
  );
  console.log(`load:       POST /v1/admin/denylist, target ${f.target_rate_per_sec}/s for ${f.duration_secs} s, public rate limit off`);
  console.log(`probe:      litestream restore + read every ${f.probe_interval_ms} ms, same machine`);
  console.log();
  console.log(
    table([
      ["rows committed (201)", String(f.rows)],
      ["write rate achieved", `${f.write_rate_per_sec === null ? "n/a" : f.write_rate_per_sec.toFixed(1)}/s`],
      ["write errors", `${f.write_errors}${f.write_errors ? ` ${JSON.stringify(f.write_error_kinds)}` : ""}`],
      ["write response p50 / p99 / max", `${s(f.write_response_p50_ms)} / ${s(f.write_response_p99_ms)} / ${s(f.write_response_max_ms)} ms`],
      ["lag p50", s(f.lag_p50_secs, " s")],
      ["lag p90", s(f.lag_p90_secs, " s")],
      ["lag p99", s(f.lag_p99_secs, " s")],
      ["lag max", s(f.lag_max_secs, " s")],
      ["rows never seen", `${f.rows_never_seen}${f.rows_never_seen ? ` (gave up ${DRAIN_TIMEOUT_MS / 1000} s after the writer stopped)` : ""}`],
      ["probe resolution (gap mean / max)", `${s(f.probe_gap_mean_ms)} / ${s(f.probe_gap_max_ms)} ms`],
      ["restore duration (mean / max)", `${s(f.restore_mean_ms)} / ${s(f.restore_max_ms)} ms`],
      ["restores (failed)", `${f.probes} (${f.probes_failed})`],
    ]),
  );
  console.log();
  console.log(`/v1/status replication at the end: ${JSON.stringify(f.status_replication)}`);
  if (f.probe_first_failure) console.log(`first failed restore: ${f.probe_first_failure}`);
  console.log();
  console.log(explanation);
  return 0;
}

process.exit(await main());
