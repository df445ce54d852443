/**
 * Replication posture: what GET /v1/status, /metrics and `svc doctor` report about Litestream.
 * The context holds one; the replicator in `svc serve` keeps it current (a recurring job asks
 * the Litestream daemon every few seconds). Nothing here names the replica's location or
 * credentials: the status route is public.
 */
import type { ReplicaKind } from "./replica-url.ts";

export type ReplicationState =
  /** backup.replica = "off" */
  | "off"
  /** configured, but the litestream program is missing */
  | "not_installed"
  | "starting"
  | "replicating"
  /** the litestream child died and is being restarted */
  | "restarting"
  /** configured, but not running in this process (CLI, tests, or after shutdown) */
  | "stopped";

export interface ReplicationPosture {
  enabled: boolean;
  state: ReplicationState;
  replica_kind: ReplicaKind | null;
  litestream_version: string | null;
  /** When Litestream last synced the database (its own report). */
  last_sync_at: string | null;
  /** Age of the oldest change the replica does not hold yet (0 when it holds everything), as of the last check. */
  lag_seconds: number | null;
  txid: number | null;
  replicated_txid: number | null;
  restarts: number;
  last_error: string | null;
}

export class ReplicationStatus {
  private posture: ReplicationPosture;
  private refresher: (() => Promise<void>) | null = null;

  constructor(kind: ReplicaKind | null) {
    this.posture = {
      enabled: kind !== null,
      state: kind === null ? "off" : "stopped",
      replica_kind: kind,
      litestream_version: null,
      last_sync_at: null,
      lag_seconds: null,
      txid: null,
      replicated_txid: null,
      restarts: 0,
      last_error: null,
    };
  }

  snapshot(): ReplicationPosture {
    return { ...this.posture };
  }

  update(patch: Partial<ReplicationPosture>): void {
    this.posture = { ...this.posture, ...patch };
  }

  /** The running replicator registers how to refresh the posture; without one, refresh is a no-op. */
  setRefresher(refresher: (() => Promise<void>) | null): void {
    this.refresher = refresher;
  }

  async refresh(): Promise<void> {
    if (this.refresher) await this.refresher();
  }
}

declare module "../../context.ts" {
  interface Context {
    /** Litestream replication as this process sees it (kept current by `svc serve`; set by the backup module's wire). */
    replication: ReplicationStatus;
  }
}
