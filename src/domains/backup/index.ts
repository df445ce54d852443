/**
 * Litestream replication, backups and restore (`svc backup …`, `svc restore`; the replication block of /v1/status).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { findLitestream, LITESTREAM_VERSION, LitestreamControl, litestreamVersion, socketPath } from "./litestream.ts";
export type { ReplicationPosture, ReplicationState, ReplicationStatus } from "./posture.ts";
export { livePid, removePid, writePid } from "./process.ts";
export { defaultReplicaUrl, parseReplica, redactReplicaUrl, ReplicaUrlError } from "./replica-url.ts";
export { stopOrphanedLitestream } from "./replicator.ts";
export { ensureReplicaDir, restoreIfMissing, runningServer } from "./service.ts";
