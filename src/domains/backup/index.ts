/** Litestream replication, backups and restore (`svc backup …`, `svc restore`; the replication block of /v1/status). */
import { defineModule } from "../../module.ts";
import { backupGroup } from "./cli.ts";
import { restoreCommand } from "./cli-restore.ts";
import { backupConfig } from "./config.ts";
import { ReplicationStatus } from "./posture.ts";
import { parseReplica } from "./replica-url.ts";
import { startReplication, stopReplication } from "./serve.ts";

export const backupModule = defineModule({
  name: "backup",
  config: backupConfig,
  wire(ctx) {
    ctx.replication = new ReplicationStatus(parseReplica(ctx.config.backup.replica)?.kind ?? null);
  },
  jobs(ctx) {
    // Replication lag and last sync for /v1/status and /metrics (a no-op when svc is not replicating).
    ctx.scheduler.every("backup.monitor", 5_000, () => ctx.replication.refresh());
  },
  serve: { start: startReplication, stop: stopReplication },
  cli: [backupGroup, restoreCommand],
});

export { findLitestream, LITESTREAM_VERSION, LitestreamControl, litestreamVersion, socketPath } from "./litestream.ts";
export type { ReplicationPosture, ReplicationState, ReplicationStatus } from "./posture.ts";
export { livePid, removePid, writePid } from "./process.ts";
export { defaultReplicaUrl, parseReplica, redactReplicaUrl, ReplicaUrlError } from "./replica-url.ts";
export { stopOrphanedLitestream } from "./replicator.ts";
export { ensureReplicaDir, restoreIfMissing, runningServer } from "./service.ts";
