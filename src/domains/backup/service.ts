/**
 * Backup and restore, for `svc setup`, `svc serve` (restore on boot), `svc restore` and
 * `svc backup …`. Every restore goes to a temporary file beside its target, passes
 * `PRAGMA integrity_check`, and only then is renamed into place: a bad replica never
 * replaces a database.
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type Config, paths } from "../../config.ts";
import { integrityCheck } from "../../core/db.ts";
import { type Logger, silentLogger } from "../../core/log.ts";
import {
  findLitestream,
  LitestreamControl,
  LitestreamError,
  listReplicaFiles,
  litestreamVersion,
  replicateOnce,
  restoreFromReplica,
  socketPath,
  writeLitestreamConfig,
} from "./litestream.ts";
import { livePid } from "./process.ts";
import { parseReplica, type Replica, redactReplicaUrl } from "./replica-url.ts";
import { stopOrphanedLitestream } from "./replicator.ts";

/** Tables whose row counts `svc backup verify` compares between the live database and a restore. */
export const KEY_TABLES = ["accounts", "sessions", "api_keys", "ledger_entries", "holds", "outbox_events", "audit_log", "denylist", "schema_migrations"] as const;

export class BackupError extends Error {}

export function replicaOf(config: Config, override?: string): Replica {
  const replica = parseReplica(override ?? config.backup.replica);
  if (!replica) throw new BackupError("replication is off (backup.replica = \"off\"); set one with `svc backup configure --replica URL`");
  return replica;
}

export function requireLitestream(config: Config): string {
  const bin = findLitestream(config);
  if (!bin) throw new BackupError(`litestream is not installed (looked for "${config.backup.litestream}"); install.sh installs it, see docs/backup.md`);
  return bin;
}

/** Creates the directory of a file replica (0700) so Litestream can write into it. */
export function ensureReplicaDir(replica: Replica): boolean {
  if (!replica.dir || existsSync(replica.dir)) return false;
  mkdirSync(replica.dir, { recursive: true, mode: 0o700 });
  return true;
}

/** The PID of the `svc serve` running on this data dir, if any. */
export function runningServer(config: Config): number | null {
  return livePid(paths(config).servePid, "serve");
}

function removeWithSidecars(path: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
}

function checkRestored(path: string): string[] {
  const db = new Database(path);
  try {
    return integrityCheck(db);
  } finally {
    db.close();
  }
}

interface RestoredFile {
  restored: boolean;
  tmp: string;
}

/** Restores into a temp file next to `target` and integrity-checks it; the caller moves it into place. */
async function restoreToTemp(bin: string, replica: Replica, target: string, opts: { timestamp?: string; ifReplicaExists?: boolean }): Promise<RestoredFile> {
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.restoring-${process.pid}-${Date.now()}`;
  removeWithSidecars(tmp);
  try {
    const outcome = await restoreFromReplica(bin, replica, { out: tmp, timestamp: opts.timestamp, ifReplicaExists: opts.ifReplicaExists });
    if (!outcome.restored) return { restored: false, tmp };
    const problems = checkRestored(tmp);
    if (problems.length) throw new BackupError(`the restored database fails integrity_check (${problems.slice(0, 3).join("; ")}); nothing was replaced`);
    return { restored: true, tmp };
  } catch (err) {
    removeWithSidecars(tmp);
    if (err instanceof LitestreamError) throw new BackupError(`restore from ${redactReplicaUrl(replica.url)} failed: ${err.message}`);
    throw err;
  }
}

export type BootRestore = "off" | "exists" | "not_installed" | "no_backup" | "restored";

/**
 * On start (and in setup): when the database file is missing and a replica holds a backup,
 * bring it back first. A replica that exists but cannot be restored stops the start, rather
 * than starting empty and replicating an empty database over the backup.
 */
export async function restoreIfMissing(config: Config, log: Logger): Promise<BootRestore> {
  const replica = parseReplica(config.backup.replica);
  if (!replica) return "off";
  const db = paths(config).db;
  if (existsSync(db)) return "exists";
  const bin = findLitestream(config);
  if (!bin) {
    log.warn("the database is missing and litestream is not installed, so it cannot be restored; starting with a new database");
    return "not_installed";
  }
  const result = await restoreToTemp(bin, replica, db, { ifReplicaExists: true });
  if (!result.restored) return "no_backup";
  removeWithSidecars(db);
  renameSync(result.tmp, db);
  log.warn("the database was missing; restored it from the replica", { replica: redactReplicaUrl(replica.url) });
  return "restored";
}

export interface RestoreInput {
  to?: string;
  timestamp?: string;
  force?: boolean;
  replica?: string;
}

export interface RestoreReport {
  target: string;
  replica: string;
  timestamp: string | null;
  replaced: string | null;
  tables: number;
}

export function parseTimestamp(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new BackupError(`--timestamp "${value}" is not a date and time (use RFC 3339, e.g. 2026-11-21T18:30:00Z)`);
  return new Date(ms).toISOString();
}

/** `svc restore`: the latest (or a point-in-time) state from the replica, verified, then moved into place. */
export async function restoreDatabase(config: Config, input: RestoreInput): Promise<RestoreReport> {
  const replica = replicaOf(config, input.replica);
  const bin = requireLitestream(config);
  const live = paths(config).db;
  const target = resolve(input.to ?? live);
  const timestamp = input.timestamp ? parseTimestamp(input.timestamp) : undefined;
  if (target === live) {
    const pid = runningServer(config);
    if (pid) throw new BackupError(`svc serve (pid ${pid}) is using ${live}; stop it before restoring over the live database`);
  }
  if (target === live && existsSync(target) && !input.force) {
    throw new BackupError(`${target} exists (the live database); pass --force to replace it (the current file is kept beside it as .before-restore-…)`);
  }
  // Only now (nothing refused) stop a replicator a crashed svc left behind: it must not ship the old state on top.
  if (target === live) await stopOrphanedLitestream(config, silentLogger);
  if (existsSync(target) && !input.force) {
    throw new BackupError(`${target} exists; pass --force to replace it (the current file is kept beside it as .before-restore-…)`);
  }
  const result = await restoreToTemp(bin, replica, target, { timestamp });
  if (!result.restored) throw new BackupError(`the replica ${redactReplicaUrl(replica.url)} holds no backup${timestamp ? ` at or before ${timestamp}` : ""}`);
  let replaced: string | null = null;
  if (existsSync(target)) {
    replaced = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    renameSync(target, replaced);
    for (const suffix of ["-wal", "-shm"]) if (existsSync(target + suffix)) renameSync(target + suffix, replaced + suffix);
  }
  renameSync(result.tmp, target);
  const db = new Database(target, { readonly: true });
  const tables = db.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()!.n;
  db.close();
  return { target, replica: redactReplicaUrl(replica.url), timestamp: timestamp ?? null, replaced, tables };
}

function countRows(path: string): Record<string, number | null> {
  const db = new Database(path, { readonly: true });
  try {
    const out: Record<string, number | null> = {};
    for (const table of KEY_TABLES) {
      try {
        out[table] = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
      } catch {
        out[table] = null;
      }
    }
    return out;
  } finally {
    db.close();
  }
}

export interface VerifyReport {
  ok: boolean;
  replica: string;
  synced_first: boolean;
  integrity: "ok" | string;
  tables: { table: string; live: number | null; replica: number | null; ok: boolean }[];
  problems: string[];
}

/**
 * `svc backup verify`: sync, restore the latest state to a temp file, integrity-check it, and
 * compare the row counts of the key tables with the live database. Counts are read before the
 * sync and after the restore, so writes in between cannot fail a good replica.
 */
export async function verifyBackup(config: Config, input: { replica?: string } = {}): Promise<VerifyReport> {
  const replica = replicaOf(config, input.replica);
  const bin = requireLitestream(config);
  const live = paths(config).db;
  if (!existsSync(live)) throw new BackupError(`there is no live database at ${live} to compare with`);
  const before = countRows(live);
  let syncedFirst = false;
  if (!input.replica) {
    await backupNow(config);
    syncedFirst = true;
  }
  const problems: string[] = [];
  let integrity = "ok";
  let restoredCounts: Record<string, number | null> = {};
  const scratch = `${live}.verify-${process.pid}-${Date.now()}`;
  try {
    const result = await restoreToTemp(bin, replica, scratch, {});
    if (!result.restored) throw new BackupError("the replica holds no backup");
    restoredCounts = countRows(result.tmp);
    removeWithSidecars(result.tmp);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    integrity = message;
    problems.push(message);
  }
  const after = countRows(live);
  const tables = KEY_TABLES.map((table) => {
    const lo = Math.min(before[table] ?? 0, after[table] ?? 0);
    const hi = Math.max(before[table] ?? 0, after[table] ?? 0);
    const got = restoredCounts[table] ?? null;
    const ok = integrity === "ok" && (before[table] === null ? got === null : got !== null && got >= lo && got <= hi);
    if (integrity === "ok" && !ok) problems.push(`${table}: replica has ${got ?? "no table"}, live has ${lo === hi ? lo : `${lo}–${hi}`}`);
    return { table, live: after[table] ?? null, replica: got, ok };
  });
  return { ok: problems.length === 0, replica: redactReplicaUrl(replica.url), synced_first: syncedFirst, integrity, tables, problems };
}

export interface BackupPosition {
  mode: "daemon" | "once";
  txid: number | null;
  replicated_txid: number | null;
  replica_files: number;
  latest_file_at: string | null;
}

async function replicaSummary(bin: string, replica: Replica): Promise<{ files: number; latest: string | null; maxTxid: number | null }> {
  const files = await listReplicaFiles(bin, replica);
  const latest = files.map((f) => f.timestamp).sort().at(-1) ?? null;
  const maxTxid = files.length ? Math.max(...files.map((f) => Number.parseInt(f.max_txid, 16))) : null;
  return { files: files.length, latest, maxTxid };
}

/**
 * `svc backup now`: with svc running, asks its Litestream to sync and waits until the replica
 * has everything; otherwise runs one replication pass with a fresh snapshot. Reports the
 * position (Litestream transaction ids) the replica is at.
 */
export async function backupNow(config: Config): Promise<BackupPosition> {
  const replica = replicaOf(config);
  const bin = requireLitestream(config);
  const db = paths(config).db;
  const control = new LitestreamControl(socketPath(config.data_dir));
  if (await control.reachable()) {
    try {
      const r = await control.sync(db, true, 60);
      const summary = await replicaSummary(bin, replica);
      return { mode: "daemon", txid: r.txid, replicated_txid: r.replicated_txid, replica_files: summary.files, latest_file_at: summary.latest };
    } catch (err) {
      throw new BackupError(`litestream did not finish the sync: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  // Two replicators on one replica would corrupt it: without a reachable daemon, run a pass only when svc is down.
  const pid = runningServer(config);
  if (pid) throw new BackupError(`svc serve (pid ${pid}) is running but its litestream does not answer (see \`svc backup status\`); not starting a second replicator`);
  ensureReplicaDir(replica);
  await replicateOnce(bin, writeLitestreamConfig(config, replica), true);
  const summary = await replicaSummary(bin, replica);
  return { mode: "once", txid: summary.maxTxid, replicated_txid: summary.maxTxid, replica_files: summary.files, latest_file_at: summary.latest };
}

export interface BackupStatus {
  replica: string | null;
  replica_kind: string | null;
  litestream: string | null;
  litestream_version: string | null;
  server_pid: number | null;
  daemon: { pid: number; uptime_seconds: number; last_sync_at: string | null; txid: number; replicated_txid: number } | null;
  replica_files: number | null;
  latest_file_at: string | null;
  problems: string[];
}

export async function backupStatus(config: Config): Promise<BackupStatus> {
  const replica = parseReplica(config.backup.replica);
  const bin = findLitestream(config);
  const status: BackupStatus = {
    replica: replica ? redactReplicaUrl(replica.url) : null,
    replica_kind: replica?.kind ?? null,
    litestream: bin,
    litestream_version: bin ? await litestreamVersion(bin) : null,
    server_pid: runningServer(config),
    daemon: null,
    replica_files: null,
    latest_file_at: null,
    problems: [],
  };
  if (!replica) return status;
  if (!bin) {
    status.problems.push("litestream is not installed: nothing is being replicated");
    return status;
  }
  const control = new LitestreamControl(socketPath(config.data_dir));
  try {
    const info = await control.info();
    const db = paths(config).db;
    const sync = await control.sync(db, false, 10);
    status.daemon = { pid: info.pid, uptime_seconds: info.uptime_seconds, last_sync_at: await control.lastSyncAt(db), txid: sync.txid, replicated_txid: sync.replicated_txid };
  } catch {
    if (status.server_pid) status.problems.push("svc is running but its litestream does not answer: replication is not running");
  }
  try {
    const summary = await replicaSummary(bin, replica);
    status.replica_files = summary.files;
    status.latest_file_at = summary.latest;
    if (!summary.files) status.problems.push("the replica holds no backup yet");
  } catch (err) {
    status.problems.push(`cannot read the replica: ${err instanceof Error ? err.message : String(err)}`);
  }
  return status;
}

/** Writes litestream.yml for the configured replica (svc serve does this on every start too). */
export function writeReplicationConfig(config: Config): string | null {
  const replica = parseReplica(config.backup.replica);
  if (!replica) return null;
  ensureReplicaDir(replica);
  return writeLitestreamConfig(config, replica);
}

