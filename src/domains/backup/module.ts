/**
 * Litestream replication, backups and restore (`svc backup …`, `svc restore`; the replication block of /v1/status;
 * GET /v1/admin/backup).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { backupGroup } from "./cli.ts";
import { restoreCommand } from "./cli-restore.ts";
import { backupConfig } from "./config.ts";
import { ReplicationStatus } from "./posture.ts";
import { parseReplica } from "./replica-url.ts";
import { backupAdminRoutes } from "./routes.ts";
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
  // GET /v1/admin/backup, like every /v1/admin group only with an admin token.
  routes: (ctx) => (ctx.config.admin.token_sha256 ? [backupAdminRoutes(ctx)] : []),
  serve: { start: startReplication, stop: stopReplication },
  cli: [backupGroup, restoreCommand],
});
