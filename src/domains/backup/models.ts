/**
 * TypeBox model of GET /v1/admin/backup (admin-status.ts): the exact shape served, so the
 * OpenAPI document describes it. A replica appears only redacted (replica-url.ts).
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";

const closed = { additionalProperties: false } as const;
/** Litestream transaction ids are 64-bit; JSON numbers carry them exactly up to 2^53. */
const Txid = Int({ minimum: 0 });

/** posture.ts's ReplicationState: a state added there and not here fails the served-vs-declared check. */
const ReplicationState = t.Union(
  [t.Literal("off"), t.Literal("not_installed"), t.Literal("starting"), t.Literal("replicating"), t.Literal("restarting"), t.Literal("stopped")],
  { description: "off, not_installed, starting, replicating, restarting (the child died), or stopped (not running in this process)" },
);

export const AdminBackup = t.Object(
  {
    replication: t.Object(
      {
        enabled: t.Boolean(),
        state: ReplicationState,
        replica_kind: Nullable(t.String({ description: "file, s3, …" })),
        litestream_version: Nullable(t.String()),
        last_sync_at: Nullable(t.String({ description: "when Litestream last synced the database (its own report)" })),
        lag_seconds: Nullable(t.Number({ minimum: 0, description: "age of the oldest change the replica does not hold yet, as of the last check (every 5 s)" })),
        txid: Nullable(Txid),
        replicated_txid: Nullable(Txid),
        restarts: Int({ minimum: 0 }),
        last_error: Nullable(t.String({ description: "credentials scrubbed" })),
      },
      { ...closed, description: "This process's replication, as /v1/status and /metrics report it" },
    ),
    status: t.Object(
      {
        replica: Nullable(t.String({ description: "the replica URL with passwords and secret query values redacted; null: replication is off" })),
        replica_kind: Nullable(t.String()),
        litestream: Nullable(t.String({ description: "the litestream program found; null: not installed" })),
        litestream_version: Nullable(t.String()),
        server_pid: Nullable(Int({ minimum: 1, description: "the svc serve running on this data dir" })),
        daemon: Nullable(
          t.Object(
            {
              pid: Int({ minimum: 1 }),
              uptime_seconds: t.Number({ minimum: 0 }),
              last_sync_at: Nullable(t.String()),
              txid: Txid,
              replicated_txid: Txid,
            },
            { ...closed, description: "the running Litestream, asked over its control socket" },
          ),
        ),
        replica_files: Nullable(Int({ minimum: 0, description: "LTX files the replica holds; null when it was not read" })),
        latest_file_at: Nullable(t.String({ description: "the newest of them (the last snapshot or sync that reached it)" })),
        problems: t.Array(t.String(), { description: "what `svc backup status` reports as problems (it exits 1 when there are any); credentials scrubbed" }),
      },
      { ...closed, description: "What `svc backup status --json` prints" },
    ),
  },
  { ...closed, description: "Replication posture and backup status; a replica URL only redacted" },
);
