/**
 * GET /v1/admin/backup: what `svc backup status` prints (backupStatus: the replica, redacted;
 * Litestream found or not; the running replicator's position; the replica's newest file;
 * problems), beside this process's own replication posture (posture.ts: state, last sync, lag,
 * restarts, last error; kept current every few seconds by the backup.monitor job), which the
 * CLI cannot see from outside.
 *
 * Free text that comes from Litestream (an error, a problem) is passed through scrubbed of
 * credentials: a replica URL may carry a password or a secret query value, and Litestream may
 * quote the URL in its messages.
 */
import type { Context } from "../../context.ts";
import type { ReplicationPosture } from "./posture.ts";
import { parseReplica, redactReplicaUrl } from "./replica-url.ts";
import { type BackupStatus, backupStatus } from "./service.ts";

export interface AdminBackup {
  replication: ReplicationPosture;
  status: BackupStatus;
}

/** Credentials out of free text: the configured replica URL redacted, and any other user:password@ or secret-looking query value. */
export function scrubCredentials(text: string, replicaUrl: string | null): string {
  let out = replicaUrl ? text.split(replicaUrl).join(redactReplicaUrl(replicaUrl)) : text;
  out = out.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, "$1redacted@");
  out = out.replace(/([?&][^=\s&]*(?:key|secret|token|password|sas)[^=\s&]*=)[^&\s]+/gi, "$1redacted");
  return out;
}

export async function adminBackup(ctx: Context): Promise<AdminBackup> {
  const replicaUrl = parseReplica(ctx.config.backup.replica)?.url ?? null;
  const scrub = (text: string) => scrubCredentials(text, replicaUrl);
  const replication = ctx.replication.snapshot();
  const status = await backupStatus(ctx.config);
  return {
    replication: { ...replication, last_error: replication.last_error === null ? null : scrub(replication.last_error) },
    status: { ...status, problems: status.problems.map(scrub) },
  };
}
