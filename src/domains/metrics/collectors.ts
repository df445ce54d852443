/**
 * Gauges read from the database at scrape time, beside the HTTP counters core/telemetry.ts
 * keeps. Aggregate only (spec §4.6): totals and counts, never per-account figures.
 */
import { statSync } from "node:fs";
import { Gauge } from "prom-client";
import type { Context } from "../../context.ts";
import { accountCounts } from "../accounts/index.ts";
import { uptime } from "../status/index.ts";

export function registerCollectors(ctx: Context): void {
  const registry = ctx.telemetry.registry;
  if (registry.getSingleMetric("svc_build_info")) return;
  const registers = [registry];

  new Gauge({
    name: "svc_build_info",
    help: "Always 1; the version label says which build is running.",
    labelNames: ["version"],
    registers,
    collect() {
      this.set({ version: ctx.version }, 1);
    },
  });
  new Gauge({
    name: "svc_process_uptime_seconds",
    help: "Seconds since this process started.",
    registers,
    collect() {
      this.set((ctx.clock.now() - ctx.startedAt) / 1000);
    },
  });
  new Gauge({
    name: "svc_uptime_ratio",
    help: "Share of expected health samples that were taken and healthy, per window.",
    labelNames: ["window"],
    registers,
    collect() {
      for (const [window, ms] of [["24h", 86_400_000], ["7d", 604_800_000], ["30d", 2_592_000_000]] as const) {
        const w = uptime(ctx, ms);
        if (w.ratio !== null) this.set({ window }, w.ratio);
      }
    },
  });
  new Gauge({
    name: "svc_accounts",
    help: "Accounts by state.",
    labelNames: ["state"],
    registers,
    collect() {
      const r = accountCounts(ctx);
      this.set({ state: "active" }, r.total - r.suspended);
      this.set({ state: "suspended" }, r.suspended);
    },
  });
  new Gauge({
    name: "svc_credit_micro_usd",
    help: "Sum over all accounts of credit balance and of credit held for work in flight.",
    labelNames: ["kind"],
    registers,
    collect() {
      const r = ctx.ledger.totals();
      this.set({ kind: "balance" }, r.balance_micro_usd);
      this.set({ kind: "held" }, r.held_micro_usd);
    },
  });
  new Gauge({
    name: "svc_jobs",
    help: "Scheduler jobs by status.",
    labelNames: ["status"],
    registers,
    collect() {
      const s = ctx.scheduler.stats();
      this.set({ status: "pending" }, s.pending);
      this.set({ status: "running" }, s.running);
      this.set({ status: "failed" }, s.failed);
    },
  });
  new Gauge({
    name: "svc_job_lag_seconds",
    help: "How long the oldest due job has been waiting.",
    registers,
    collect() {
      this.set((ctx.scheduler.stats().oldest_due_ms ?? 0) / 1000);
    },
  });
  new Gauge({
    name: "svc_events",
    help: "Outbox events recorded, by type.",
    labelNames: ["type"],
    registers,
    collect() {
      this.reset();
      for (const [type, n] of Object.entries(ctx.outbox.countsByType())) this.set({ type }, n);
    },
  });
  new Gauge({
    name: "svc_replication_up",
    help: "1 while Litestream replicates the database; 0 when replication is configured but not running. Absent when replication is off.",
    registers,
    collect() {
      this.reset();
      const r = ctx.replication.snapshot();
      if (r.enabled) this.set(r.state === "replicating" ? 1 : 0);
    },
  });
  new Gauge({
    name: "svc_replication_lag_seconds",
    help: "0 when the replica holds every committed transaction; otherwise seconds since it last did.",
    registers,
    collect() {
      this.reset();
      const lag = ctx.replication.snapshot().lag_seconds;
      if (lag !== null) this.set(lag);
    },
  });
  new Gauge({
    name: "svc_replication_last_sync_timestamp_seconds",
    help: "Unix time of Litestream's last successful sync of the database.",
    registers,
    collect() {
      this.reset();
      const at = ctx.replication.snapshot().last_sync_at;
      if (at) this.set(Date.parse(at) / 1000);
    },
  });
  new Gauge({
    name: "svc_replication_restarts",
    help: "Times the Litestream child died and was restarted since svc started.",
    registers,
    collect() {
      this.set(ctx.replication.snapshot().restarts);
    },
  });
  new Gauge({
    name: "svc_db_size_bytes",
    help: "Size of the SQLite database file and its write-ahead log.",
    labelNames: ["file"],
    registers,
    collect() {
      for (const [file, path] of [["db", ctx.paths.db], ["wal", `${ctx.paths.db}-wal`]] as const) {
        try {
          this.set({ file }, statSync(path).size);
        } catch {
          this.set({ file }, 0);
        }
      }
    },
  });
}
