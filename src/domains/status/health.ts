/**
 * Recorded health. The scheduler takes a sample every `health.sample_interval_secs`: the
 * database accepts a write, the job queue is not backed up, the data disk has room. Uptime
 * over a window is the share of expected samples that were taken and healthy, so time the
 * process was down (no samples at all) counts against it, as it should.
 */
import { statfsSync } from "node:fs";
import { isoTime } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { type ConfidentialPosture, confidentialPosture } from "../confidential/index.ts";
import { type SandboxPosture, sandboxPosture } from "../sandboxes/index.ts";
import type { ReplicationState } from "../backup/index.ts";

export const HEALTH_SAMPLE_JOB = "health.sample";

/** A backlog older than this means the scheduler is stuck or starved. */
const MAX_JOB_LAG_MS = 5 * 60 * 1000;
/** A replica further behind than this is losing more than the asynchronous window promises. */
const MAX_REPLICATION_LAG_SECS = 60;
/** Less free space than this on the data disk and writes will soon fail. */
const MIN_FREE_BYTES = 256 * 1024 * 1024;

export interface SampleDetail {
  db: "ok" | "error";
  job_lag_ms: number;
  jobs_failed: number;
  disk_free_bytes: number | null;
  problems: string[];
}

export function takeSample(ctx: Context): { ok: boolean; detail: SampleDetail } {
  const problems: string[] = [];
  const stats = ctx.scheduler.stats();
  // Jobs that fell due while svc was down run right after start; that backlog is not a stuck
  // scheduler, so lag counts only from when this process started.
  const lag = Math.min(stats.oldest_due_ms ?? 0, Math.max(0, ctx.clock.now() - ctx.startedAt));
  if (lag > MAX_JOB_LAG_MS) problems.push(`job queue is ${Math.round(lag / 1000)}s behind`);
  let free: number | null = null;
  try {
    const fs = statfsSync(ctx.config.data_dir);
    free = fs.bavail * fs.bsize;
    if (free < MIN_FREE_BYTES) problems.push(`data disk has only ${Math.round(free / 1048576)} MiB free`);
  } catch {
    problems.push("cannot read free space of the data dir");
  }
  const replication = ctx.replication.snapshot();
  if (replication.enabled && replication.state !== "replicating") problems.push(`replication is ${replication.state.replace("_", " ")}`);
  else if (replication.enabled && (replication.lag_seconds ?? 0) > MAX_REPLICATION_LAG_SECS) problems.push(`the replica is ${Math.round(replication.lag_seconds!)}s behind`);
  const detail: SampleDetail = { db: "ok", job_lag_ms: lag, jobs_failed: stats.failed, disk_free_bytes: free, problems };
  return { ok: problems.length === 0, detail };
}

/** Takes and stores one sample, and drops samples older than the retention. The write itself proves the database is writable. */
export function recordSample(ctx: Context): { ok: boolean; detail: SampleDetail } {
  const sample = takeSample(ctx);
  const now = ctx.clock.now();
  ctx.tx.run(() => {
    ctx.db.query("INSERT INTO health_samples (at, ok, detail) VALUES (?, ?, ?)").run(now, sample.ok ? 1 : 0, JSON.stringify(sample.detail));
    ctx.db.query("DELETE FROM health_samples WHERE at < ?").run(now - ctx.config.health.retention_days * 86_400_000);
  });
  return sample;
}

export function registerHealthJobs(ctx: Context): void {
  ctx.scheduler.every(HEALTH_SAMPLE_JOB, ctx.config.health.sample_interval_secs * 1000, () => {
    recordSample(ctx);
  });
}

export interface UptimeWindow {
  /** Healthy samples over expected samples, 0..1 (six decimals); null before the first sample. */
  ratio: number | null;
  samples: number;
  healthy_samples: number;
  expected_samples: number;
  since: string;
}

/** When the first health sample ever was taken (ms), or null before the first. */
export function firstSampleAt(ctx: Context): number | null {
  return ctx.db.query<{ at: number | null }, []>("SELECT min(at) AS at FROM health_samples").get()?.at ?? null;
}

/** Samples taken in [from, to), and how many of them were healthy. */
export function sampleCounts(ctx: Context, from: number, to = Number.MAX_SAFE_INTEGER): { n: number; healthy: number } {
  const r = ctx.db.query<{ n: number; healthy: number | null }, [number, number]>("SELECT count(*) AS n, sum(ok) AS healthy FROM health_samples WHERE at >= ? AND at < ?").get(from, to)!;
  return { n: r.n, healthy: r.healthy ?? 0 };
}

export function uptime(ctx: Context, windowMs: number): UptimeWindow {
  const now = ctx.clock.now();
  const intervalMs = ctx.config.health.sample_interval_secs * 1000;
  const from = now - windowMs;
  const first = ctx.db.query<{ at: number | null }, []>("SELECT min(at) AS at FROM health_samples").get()?.at ?? null;
  const counts = ctx.db
    .query<{ n: number; healthy: number | null }, [number]>("SELECT count(*) AS n, sum(ok) AS healthy FROM health_samples WHERE at > ?")
    .get(from)!;
  const start = first === null ? now : Math.max(from, first);
  const expected = first === null ? 0 : Math.max(counts.n, Math.floor((now - start) / intervalMs) + 1);
  const healthy = counts.healthy ?? 0;
  return {
    ratio: expected === 0 ? null : Math.round((healthy / expected) * 1e6) / 1e6,
    samples: counts.n,
    healthy_samples: healthy,
    expected_samples: expected,
    since: isoTime(start),
  };
}

/** The public view of replication: state and freshness, never where the replica is. */
export interface ReplicationView {
  enabled: boolean;
  state: ReplicationState;
  replica_kind: string | null;
  last_sync_at: string | null;
  lag_seconds: number | null;
  restarts: number;
}

export interface StatusReport {
  status: "ok" | "degraded" | "unknown";
  version: string;
  started_at: string;
  process_uptime_secs: number;
  sample_interval_secs: number;
  last_sample: { at: string; ok: boolean; problems: string[] } | null;
  uptime: Record<"24h" | "7d" | "30d", UptimeWindow>;
  replication: ReplicationView;
  /** Where sandboxes run and what the gateway's runner can do (languages, limits, isolation). */
  sandboxes: SandboxPosture;
  /** The confidential tier's last attestation; only when confidential backends are configured. */
  confidential?: ConfidentialPosture;
}

export function statusReport(ctx: Context): StatusReport {
  const now = ctx.clock.now();
  const intervalMs = ctx.config.health.sample_interval_secs * 1000;
  const last = ctx.db
    .query<{ at: number; ok: number; detail: string }, []>("SELECT at, ok, detail FROM health_samples ORDER BY at DESC, id DESC LIMIT 1")
    .get();
  // A last sample older than three intervals means sampling itself stopped: report that, not its stale "ok".
  const status = !last ? "unknown" : last.ok === 1 && now - last.at <= 3 * intervalMs ? "ok" : "degraded";
  return {
    status,
    version: ctx.version,
    started_at: isoTime(ctx.startedAt),
    process_uptime_secs: Math.max(0, Math.floor((now - ctx.startedAt) / 1000)),
    sample_interval_secs: ctx.config.health.sample_interval_secs,
    last_sample: last ? { at: isoTime(last.at), ok: last.ok === 1, problems: (JSON.parse(last.detail) as SampleDetail).problems ?? [] } : null,
    uptime: {
      "24h": uptime(ctx, 86_400_000),
      "7d": uptime(ctx, 7 * 86_400_000),
      "30d": uptime(ctx, 30 * 86_400_000),
    },
    replication: replicationView(ctx),
    sandboxes: sandboxPosture(ctx),
    ...withConfidential(ctx),
  };
}

function withConfidential(ctx: Context): { confidential?: ConfidentialPosture } {
  const posture = confidentialPosture(ctx);
  return posture ? { confidential: posture } : {};
}

export function replicationView(ctx: Context): ReplicationView {
  const r = ctx.replication.snapshot();
  return { enabled: r.enabled, state: r.state, replica_kind: r.replica_kind, last_sync_at: r.last_sync_at, lag_seconds: r.lag_seconds, restarts: r.restarts };
}
