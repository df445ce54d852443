/** Litestream replication's svc.toml section (backup.*; docs/backup.md). */
import { type Static, Type as T } from "@sinclair/typebox";
import { type Config, ConfigError, type ConfigPart } from "../../config.ts";
import { parseReplica, ReplicaUrlError } from "./replica-url.ts";

export const BackupSection = T.Object(
  {
    /** Litestream replica URL (file:///dir, s3://bucket/path?…), or "off". */
    replica: T.String({ minLength: 1 }),
    sync_interval_secs: T.Integer({ minimum: 1, maximum: 3600 }),
    /** The litestream program: a path, or a name looked up on PATH. */
    litestream: T.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    backup: Static<typeof BackupSection>;
  }
}

export const backupConfig: ConfigPart = {
  sections: { backup: { schema: BackupSection, default: { replica: "off", sync_interval_secs: 1, litestream: "litestream" } } },
  env: [
    { name: "SVC_REPLICA", path: "backup.replica", type: "string" },
    { name: "SVC_LITESTREAM", path: "backup.litestream", type: "string" },
  ],
  check(config: Config) {
    try {
      parseReplica(config.backup.replica);
    } catch (err) {
      if (err instanceof ReplicaUrlError) throw new ConfigError(`backup.replica: ${err.message}`);
      throw err;
    }
  },
};
