/**
 * Preparing a data dir: what `svc setup` does (and what tests and install.sh rely on).
 * Idempotent: keys that exist are kept, never replaced; config values are changed only when
 * given; the database is created or migrated. The report says what was created, changed and
 * kept.
 *
 * Two phases, so that on a new machine a replica can bring the database back in between:
 * prepare (directories, keys, config, replica dir), then the database.
 */
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { migrations } from "../migrations/index.ts";
import { ConfigError, paths, readConfigFile, writeConfigFile } from "./config.ts";
import { loadConfig } from "./open.ts";
import { closeDb, openDb } from "./core/db.ts";
import type { Logger } from "./core/log.ts";
import { applyMigrations } from "./core/migrate.ts";
import { Sealer } from "./core/seal.ts";
import { sha256Hex } from "./core/secrets.ts";
import { Signer } from "./core/signer.ts";
import { defaultReplicaUrl, parseReplica, redactReplicaUrl, ReplicaUrlError } from "./domains/backup/index.ts";
import { ensureReplicaDir, restoreIfMissing } from "./domains/backup/index.ts";
import { parseEvmAddress } from "./domains/billing/index.ts";
import { ensureProvenanceCredential } from "./domains/media/index.ts";

export interface SetupInput {
  configPath: string;
  dataDir: string;
  listen?: string;
  publicUrl?: string;
  adminToken?: string;
  metricsToken?: string;
  /** Replica URL or "off". When absent and none is configured yet: a file replica beside the data dir. */
  replica?: string;
  /** billing.treasury: where USDT deposits and x402 payments go; "" turns them off. Absent: unchanged. */
  treasury?: string;
  /** true: webhooks may target private and loopback addresses (webhooks.allow_private). Absent: unchanged. */
  allowPrivateWebhooks?: boolean;
}

export interface SetupReport {
  config_path: string;
  data_dir: string;
  signer_address: string;
  created: string[];
  changed: string[];
  kept: string[];
}

const tokenHash = (section: unknown) => (section as { token_sha256?: string } | undefined)?.token_sha256;

/** Phase 1: directories, keys, config file and replica directory. */
function prepare(input: SetupInput): SetupReport {
  const dataDir = resolve(input.dataDir);
  const configPath = resolve(input.configPath);
  const report: SetupReport = { config_path: configPath, data_dir: dataDir, signer_address: "", created: [], changed: [], kept: [] };

  const currentReplica = (readConfigFile(configPath).backup as { replica?: string } | undefined)?.replica;
  const replicaValue = input.replica ?? currentReplica ?? defaultReplicaUrl(dataDir);
  let replica;
  try {
    replica = parseReplica(replicaValue);
  } catch (err) {
    if (err instanceof ReplicaUrlError) throw new ConfigError(`--replica: ${err.message}`);
    throw err;
  }

  // Checked before anything is created, like the replica: a typo must leave no half-made data dir.
  let treasury: string | undefined;
  try {
    treasury = input.treasury === undefined || input.treasury === "" ? input.treasury : parseEvmAddress(input.treasury);
  } catch (err) {
    throw new ConfigError(`--treasury: ${(err as Error).message}`);
  }

  if (!existsSync(dataDir)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    report.created.push(`data dir ${dataDir}`);
  }
  mkdirSync(dirname(configPath), { recursive: true });

  const p = paths({ data_dir: dataDir });
  if (Sealer.createKeyFile(p.masterKey)) report.created.push(`master key ${p.masterKey}`);
  else report.kept.push(`master key ${p.masterKey}`);
  if (Sealer.keyFileTooOpen(p.masterKey)) chmodSync(p.masterKey, 0o600);
  const sealer = Sealer.fromKeyFile(p.masterKey);

  if (Signer.createKeyFile(p.signerKey, sealer)) report.created.push(`receipt signer key ${p.signerKey}`);
  else report.kept.push(`receipt signer key ${p.signerKey}`);
  report.signer_address = Signer.fromKeyFile(p.signerKey, sealer).address;

  const fileExisted = existsSync(configPath);
  const current = readConfigFile(configPath);
  const values: Record<string, unknown> = {};
  // A config file outside the data dir must say where the data is; inside it, the location is implied.
  if (resolve(dirname(configPath)) !== dataDir && current.data_dir !== dataDir) values.data_dir = dataDir;
  if (input.listen && current.listen !== input.listen) values.listen = input.listen;
  if (input.publicUrl && current.public_url !== input.publicUrl) values.public_url = input.publicUrl.replace(/\/+$/, "");
  if (input.adminToken && tokenHash(current.admin) !== sha256Hex(input.adminToken)) values.admin = { token_sha256: sha256Hex(input.adminToken) };
  if (input.metricsToken && tokenHash(current.metrics) !== sha256Hex(input.metricsToken)) values.metrics = { token_sha256: sha256Hex(input.metricsToken) };
  if (treasury !== undefined && ((current.billing as { treasury?: string } | undefined)?.treasury ?? "") !== treasury) values.billing = { treasury };
  if (input.allowPrivateWebhooks !== undefined && ((current.webhooks as { allow_private?: boolean } | undefined)?.allow_private ?? false) !== input.allowPrivateWebhooks) {
    values.webhooks = { allow_private: input.allowPrivateWebhooks };
  }
  const replicaSetting = replica ? replica.url : "off";
  if (currentReplica !== replicaSetting) values.backup = { replica: replicaSetting };
  if (!fileExisted || Object.keys(values).length) {
    writeConfigFile(configPath, values);
    if (!fileExisted) report.created.push(`config ${configPath}`);
    else report.changed.push(`config ${configPath} (${Object.keys(values).join(", ")})`);
  } else report.kept.push(`config ${configPath}`);

  if (replica && ensureReplicaDir(replica)) report.created.push(`replica dir ${replica.dir}`);
  return report;
}

/** Phase 2: create or migrate the database. */
function finish(report: SetupReport, restored: boolean): SetupReport {
  const p = paths({ data_dir: report.data_dir });
  const dbExisted = existsSync(p.db);
  const db = openDb(p.db);
  try {
    const { applied } = applyMigrations(db, migrations);
    if (!dbExisted) {
      chmodSync(p.db, 0o600);
      report.created.push(`database ${p.db}`);
    } else if (applied.length) report.changed.push(`database ${p.db} (migrated: ${applied.join(", ")})`);
    else if (!restored) report.kept.push(`database ${p.db}`);
  } finally {
    closeDb(db);
  }
  return report;
}

/** Setup without a restore step (tests, and data dirs without a replica backup). */
export function setupDataDir(input: SetupInput): SetupReport {
  return finish(prepare(input), false);
}

/**
 * `svc setup`: as setupDataDir, but when the database is missing and the configured replica
 * holds a backup (a new machine pointed at an old replica), the database is restored first.
 */
export async function setupWithRestore(input: SetupInput, log: Logger): Promise<SetupReport> {
  const report = prepare(input);
  const config = loadConfig({ config: report.config_path, dataDir: report.data_dir });
  const outcome = await restoreIfMissing(config, log);
  if (outcome === "restored") report.created.push(`database ${paths(config).db} (restored from ${redactReplicaUrl(config.backup.replica)})`);
  // The C2PA signing chain (media manifests); async key generation, so here rather than in prepare().
  const provenance = paths(config).provenance;
  if (await ensureProvenanceCredential(provenance, Sealer.fromKeyFile(paths(config).masterKey))) report.created.push(`C2PA signing chain ${provenance}`);
  else report.kept.push(`C2PA signing chain ${provenance}`);
  return finish(report, outcome === "restored");
}

export const defaultConfigPath = (dataDir: string): string => join(resolve(dataDir), "svc.toml");
