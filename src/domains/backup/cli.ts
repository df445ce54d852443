/**
 * svc backup status|now|verify|configure: Litestream replication of the database, operated
 * from the CLI (docs/backup.md).
 */
import { paths, writeConfigFile, readConfigFile } from "../../config.ts";
import { formatTxid } from "./litestream.ts";
import { parseReplica, redactReplicaUrl } from "./replica-url.ts";
import { backupNow, backupStatus, BackupError, runningServer, verifyBackup, writeReplicationConfig } from "./service.ts";
import { type Command, CommandFailed, EXIT_FAILURE, type Group, locationOptions, str, UsageError } from "../../cli/command.ts";

const json = { type: "boolean", description: "print JSON" } as const;

/** Backup errors are explained failures: print the message, exit 1. */
async function explained<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof BackupError) throw new CommandFailed(err.message);
    throw err;
  }
}

const status: Command = {
  name: "backup status",
  summary: "Where replicas go, whether Litestream is replicating, and what the replica holds",
  options: { ...locationOptions, json },
  details: "Exits 1 when replication is configured but not working.",
  async run({ values }, host) {
    const config = host.configFrom(values);
    const s = await explained(() => backupStatus(config));
    if (values.json) console.log(JSON.stringify(s, null, 2));
    else {
      console.log(`replica:     ${s.replica ?? "off (backup.replica = \"off\")"}`);
      console.log(`litestream:  ${s.litestream ? `${s.litestream} (${s.litestream_version ?? "version unknown"})` : "not installed"}`);
      console.log(`svc serve:   ${s.server_pid ? `running (pid ${s.server_pid})` : "not running"}`);
      if (s.daemon) {
        const behind = s.daemon.replicated_txid >= s.daemon.txid ? "up to date" : `${s.daemon.txid - s.daemon.replicated_txid} transaction(s) behind`;
        console.log(`replicating: yes (litestream pid ${s.daemon.pid}, up ${s.daemon.uptime_seconds}s), last sync ${s.daemon.last_sync_at ?? "never"}`);
        console.log(`position:    local ${formatTxid(s.daemon.txid)}, replica ${formatTxid(s.daemon.replicated_txid)} (${behind})`);
      } else if (s.replica) console.log("replicating: no (starts with svc serve)");
      if (s.replica_files !== null) console.log(`replica:     ${s.replica_files} LTX file(s), newest ${s.latest_file_at ?? "none"}`);
      for (const p of s.problems) console.log(`problem:     ${p}`);
    }
    return s.problems.length ? EXIT_FAILURE : 0;
  },
};

const now: Command = {
  name: "backup now",
  summary: "Sync the replica now (or take a snapshot when svc is stopped) and report the position",
  options: { ...locationOptions, json },
  async run({ values }, host) {
    const config = host.configFrom(values);
    const pos = await explained(() => backupNow(config));
    if (values.json) return void console.log(JSON.stringify(pos, null, 2));
    const how = pos.mode === "daemon" ? "synced by the running svc" : "snapshot taken (svc not running)";
    console.log(`${how}: replica at transaction ${formatTxid(pos.replicated_txid)}${pos.txid !== null && pos.txid === pos.replicated_txid ? " (everything committed so far)" : ""}`);
    console.log(`replica holds ${pos.replica_files} LTX file(s), newest ${pos.latest_file_at ?? "none"}`);
  },
};

const verify: Command = {
  name: "backup verify",
  summary: "Restore the latest backup to a temp file, integrity-check it, compare row counts with the live database",
  options: {
    ...locationOptions,
    json,
    replica: { type: "string", value: "URL", description: "verify this replica instead of the configured one (no sync first)" },
  },
  details: "Exits 1, with the reason, when the backup cannot be restored, fails integrity_check, or its counts do not match.",
  async run({ values }, host) {
    const config = host.configFrom(values);
    const report = await explained(() => verifyBackup(config, { replica: str(values.replica) }));
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else {
      console.log(`replica ${report.replica}${report.synced_first ? " (synced first)" : ""}`);
      console.log(`restore + integrity_check: ${report.integrity}`);
      if (report.integrity === "ok") for (const t of report.tables) console.log(`  ${t.ok ? "ok  " : "DIFF"}  ${t.table.padEnd(18)} live ${String(t.live ?? "-").padStart(8)}   replica ${String(t.replica ?? "-").padStart(8)}`);
      console.log(report.ok ? "backup verified" : `BACKUP VERIFICATION FAILED:\n  ${report.problems.join("\n  ")}`);
    }
    return report.ok ? 0 : EXIT_FAILURE;
  },
};

const configure: Command = {
  name: "backup configure",
  summary: "Change where replicas go (or turn replication off); rewrites litestream.yml",
  options: {
    ...locationOptions,
    replica: { type: "string", value: "URL", description: "file:///dir, s3://bucket/path?endpoint=…&region=…, or off" },
    "sync-interval": { type: "string", value: "SECS", description: "how often Litestream ships changes to the replica (default 1)" },
  },
  details: "S3 credentials come from the environment of svc serve (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), never svc.toml.",
  run({ values }, host) {
    const replica = str(values.replica);
    const interval = str(values["sync-interval"]);
    if (replica === undefined && interval === undefined) throw new UsageError("give --replica and/or --sync-interval");
    if (replica !== undefined) {
      try {
        parseReplica(replica);
      } catch (err) {
        throw new UsageError(`--replica: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (interval !== undefined && !/^\d+$/.test(interval)) throw new UsageError("--sync-interval must be whole seconds");
    const before = host.configFrom(values);
    const backup: Record<string, unknown> = {};
    if (replica !== undefined) backup.replica = parseReplica(replica)?.url ?? "off";
    if (interval !== undefined) backup.sync_interval_secs = Number(interval);
    const current = readConfigFile(before.config_path);
    writeConfigFile(before.config_path, { ...current, backup: { ...(current.backup as object), ...backup } });
    const config = host.configFrom(values); // validates what was written
    const yml = writeReplicationConfig(config);
    console.log(`backup.replica = ${parseReplica(config.backup.replica) ? redactReplicaUrl(config.backup.replica) : "off"} (sync every ${config.backup.sync_interval_secs}s)`);
    if (yml) console.log(`wrote ${yml}`);
    const pid = runningServer(config);
    console.log(pid ? `svc serve (pid ${pid}) is running: restart it to apply (systemctl restart svc)` : "applies the next time svc serve starts");
    if (!parseReplica(config.backup.replica)) console.log(`replication is off; ${paths(config).db} is no longer copied anywhere`);
  },
};

export const backupGroup: Group = {
  name: "backup",
  summary: "Litestream replication: status, sync now, verify, configure",
  commands: [status, now, verify, configure],
};
