/**
 * Replication inside `svc serve`: svc runs `litestream replicate` as its child, restarts it
 * with backoff if it dies, and stops it last on shutdown (after a final sync), so the
 * database is checkpointed only once Litestream has everything.
 *
 * Why a supervised child rather than `litestream replicate -exec "svc serve"`: svc keeps the
 * process it is started as (systemd's main PID, signals, exit codes), can report and restart
 * replication itself, and can sync on demand over the control socket. A child orphaned by a
 * crash of svc is found through its pid file and stopped before a new one starts, so one
 * database never has two replicators.
 */
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type Config, paths } from "../../config.ts";
import type { Context } from "../../context.ts";
import type { Logger } from "../../core/log.ts";
import { LitestreamControl, litestreamVersion, socketPath, writeLitestreamConfig } from "./litestream.ts";
import { livePid, removePid, terminate, writePid } from "./process.ts";
import type { Replica } from "./replica-url.ts";

const MAX_BACKOFF_MS = 30_000;

/**
 * When Litestream picked up transaction `txid`: the modification time of the level-0 LTX file
 * that holds it, in Litestream's local directory beside the database (.<name>-litestream).
 */
function pendingSince(dbPath: string, txid: number): number | null {
  const dir = join(dirname(dbPath), `.${basename(dbPath)}-litestream`, "ltx", "0");
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  for (const name of names) {
    const m = /^([0-9a-f]{16})-([0-9a-f]{16})\.ltx$/.exec(name);
    if (!m || Number.parseInt(m[1]!, 16) > txid || Number.parseInt(m[2]!, 16) < txid) continue;
    try {
      return statSync(join(dir, name)).mtimeMs;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * A litestream whose svc was killed (-9, OOM) keeps running, reparented to init. It must be
 * gone before anything restores the database or starts a new replicator on the same replica.
 */
export async function stopOrphanedLitestream(config: Config, log: Logger): Promise<void> {
  const orphan = livePid(paths(config).litestreamPid, "litestream");
  if (!orphan) return;
  log.warn("stopping a litestream left running by a previous svc", { pid: orphan });
  await terminate(orphan, 10_000);
  removePid(paths(config).litestreamPid);
}
const READY_TIMEOUT_MS = 15_000;

export class Replicator {
  private proc: ReturnType<typeof Bun.spawn> | null = null;
  private stopping = false;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  private caughtUpAt: number | null = null;
  readonly control: LitestreamControl;
  private readonly configPath: string;

  constructor(
    private readonly ctx: Context,
    private readonly bin: string,
    private readonly replica: Replica,
  ) {
    this.control = new LitestreamControl(socketPath(ctx.config.data_dir));
    this.configPath = paths(ctx.config).litestreamConfig;
  }

  /** Writes litestream.yml, stops an orphan from a crashed run, starts the child and waits until it answers. */
  async start(): Promise<void> {
    const status = this.ctx.replication;
    status.update({ state: "starting", litestream_version: await litestreamVersion(this.bin) });
    writeLitestreamConfig(this.ctx.config, this.replica);
    await stopOrphanedLitestream(this.ctx.config, this.ctx.log);
    this.spawn();
    status.setRefresher(() => this.refresh());
    await this.waitReady();
  }

  private spawn(): void {
    this.restartTimer = null;
    const proc = Bun.spawn([this.bin, "replicate", "-config", this.configPath, "-no-expand-env"], {
      stdout: "ignore",
      stderr: "pipe",
      env: process.env,
      onExit: (_p, code, signal) => this.exited(code, signal),
    });
    this.proc = proc;
    writePid(paths(this.ctx.config).litestreamPid, proc.pid);
    void this.forwardLogs(proc.stderr as ReadableStream<Uint8Array>);
  }

  /** Litestream logs JSON lines; warnings and errors go to svc's log, the rest at debug. */
  private async forwardLogs(stream: ReadableStream<Uint8Array>): Promise<void> {
    let buffer = "";
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) this.logLine(line);
        }
      }
    } catch {
      // the child went away
    }
  }

  private logLine(line: string): void {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      entry = { msg: line };
    }
    const { level, msg, time: _time, ...fields } = entry;
    const text = `litestream: ${String(msg ?? "")}`;
    if (level === "ERROR") {
      this.ctx.replication.update({ last_error: String(msg ?? "") });
      this.ctx.log.error(text, fields);
    } else if (level === "WARN") this.ctx.log.warn(text, fields);
    else this.ctx.log.debug(text, fields);
  }

  private exited(code: number | null, signal: unknown): void {
    this.proc = null;
    if (this.stopping) return;
    const status = this.ctx.replication;
    const restarts = status.snapshot().restarts + 1;
    const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(restarts - 1, 5));
    const reason = signal ? `killed by signal ${String(signal)}` : `exited with ${code}`;
    status.update({ state: "restarting", restarts, last_error: `litestream ${reason}` });
    this.ctx.log.warn("litestream stopped unexpectedly; restarting", { reason, restart_in_ms: delay, restarts });
    // Process supervision, not a product timer: it only matters while this process lives.
    this.restartTimer = setTimeout(() => {
      if (this.stopping) return;
      this.spawn();
      void this.waitReady().catch(() => {});
    }, delay);
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let lastError = "";
    while (Date.now() < deadline && this.proc) {
      try {
        await this.control.info();
        this.ctx.replication.update({ state: "replicating" });
        await this.refresh().catch(() => {});
        return;
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      }
      await Bun.sleep(50);
    }
    throw new Error(`litestream did not start: ${this.ctx.replication.snapshot().last_error ?? lastError}`);
  }

  /**
   * Asks the daemon where it stands (the monitor job calls this every few seconds). Lag is
   * the age of the oldest change the replica does not hold yet: Litestream writes each
   * batch of commits to a local LTX file named by its transaction ids, so the file holding
   * the first unreplicated transaction says when that change was picked up. 0 when the replica
   * has everything.
   */
  async refresh(): Promise<void> {
    if (!this.proc) return;
    const db = paths(this.ctx.config).db;
    const sync = await this.control.sync(db, false, 10);
    const now = this.ctx.clock.now();
    let lag: number | null;
    if (sync.replicated_txid >= sync.txid) {
      this.caughtUpAt = now;
      lag = 0;
    } else {
      const pickedUp = pendingSince(db, sync.replicated_txid + 1) ?? this.caughtUpAt;
      lag = pickedUp === null ? null : Math.round(Math.max(0, now - pickedUp)) / 1000;
    }
    this.ctx.replication.update({
      state: "replicating",
      txid: sync.txid,
      replicated_txid: sync.replicated_txid,
      last_sync_at: await this.control.lastSyncAt(db),
      lag_seconds: lag,
    });
  }

  /** Syncs to the replica now and waits until it holds everything committed so far. */
  async syncNow(timeoutSecs = 60): Promise<{ txid: number; replicated_txid: number }> {
    const result = await this.control.sync(paths(this.ctx.config).db, true, timeoutSecs);
    await this.refresh().catch(() => {});
    return result;
  }

  /** Final sync, then SIGTERM (Litestream syncs once more on its way out), then SIGKILL if it lingers. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.ctx.replication.setRefresher(null);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const proc = this.proc;
    if (proc) {
      try {
        await this.control.sync(paths(this.ctx.config).db, true, 10);
      } catch (err) {
        this.ctx.log.warn("final sync before stopping litestream failed", { error: err instanceof Error ? err.message : String(err) });
      }
      await terminate(proc.pid, 15_000);
      await proc.exited;
    }
    removePid(paths(this.ctx.config).litestreamPid);
    this.ctx.replication.update({ state: "stopped" });
  }
}
