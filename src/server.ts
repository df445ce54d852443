/**
 * `svc serve` in one process: the HTTP server, the scheduler loop, Litestream replication as
 * a supervised child, and a graceful stop. On SIGTERM: stop accepting, let in-flight requests
 * finish (up to shutdown_grace_secs), stop the scheduler and hand unfinished jobs back to the
 * queue, sync the replica and stop Litestream, then checkpoint and close the database.
 */
import type { AnyElysia } from "elysia";
import { buildApp } from "./app.ts";
import { listenParts } from "./config.ts";
import type { Context } from "./context.ts";
import { findLitestream } from "./domains/backup/litestream.ts";
import { parseReplica } from "./domains/backup/replica-url.ts";
import { Replicator } from "./domains/backup/replicator.ts";
import { warmTokenizer } from "./domains/inference/tokens.ts";
import { requestStats } from "./domains/reports/request-stats.ts";
import { registerJobs } from "./jobs.ts";

export interface RunningServer {
  url: string;
  app: AnyElysia;
  /** The Litestream supervisor, when replication is configured and installed. */
  replicator: Replicator | null;
  /** Stops everything; resolves when the database is closed. Safe to call twice. */
  stop(): Promise<void>;
}

/** Bun's own ceiling sits a little above ours, so our 413 (with its JSON body) is what clients normally see. */
const BODY_LIMIT_MARGIN = 64 * 1024;

/** Replication, when configured: a missing litestream is reported, not fatal (the gateway still serves). */
async function startReplication(ctx: Context): Promise<Replicator | null> {
  const replica = parseReplica(ctx.config.backup.replica);
  if (!replica) return null;
  const bin = findLitestream(ctx.config);
  if (!bin) {
    ctx.replication.update({ state: "not_installed", last_error: "litestream is not installed" });
    ctx.log.warn("replication is configured but litestream is not installed: the database is NOT being replicated (see docs/backup.md)");
    return null;
  }
  const replicator = new Replicator(ctx, bin, replica);
  try {
    await replicator.start();
    ctx.log.info("replicating the database", { replica_kind: replica.kind });
  } catch (err) {
    // The supervisor keeps retrying with backoff; /v1/status and `svc backup status` show the error.
    ctx.log.error("litestream failed to start; retrying", { error: err instanceof Error ? err.message : String(err) });
  }
  return replicator;
}

export async function startServer(ctx: Context, options: { app?: AnyElysia } = {}): Promise<RunningServer> {
  registerJobs(ctx);
  // The tokenizer's tables take ~300 ms to load: before the first request, not during it.
  warmTokenizer();
  const app = options.app ?? buildApp(ctx);
  // Replication first: by the time the server answers, every write it accepts is being replicated.
  const replicator = await startReplication(ctx);
  try {
    listen(app, ctx);
  } catch (err) {
    await replicator?.stop();
    throw err;
  }
  const server = app.server!;
  ctx.scheduler.start();
  const url = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  ctx.log.info("svc serving", { url, public_url: ctx.config.public_url, version: ctx.version, data_dir: ctx.config.data_dir });

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      const graceMs = ctx.config.shutdown_grace_secs * 1000;
      const deadline = Date.now() + graceMs;
      ctx.log.info("svc stopping", { grace_secs: ctx.config.shutdown_grace_secs });
      const drained = server.stop(false).then(() => true);
      const timedOut = new Promise<boolean>((r) => setTimeout(() => r(false), graceMs));
      if (!(await Promise.race([drained, timedOut]))) {
        ctx.log.warn("requests still running after the grace period; closing their connections");
        await server.stop(true);
      }
      await ctx.scheduler.stop(Math.max(0, deadline - Date.now()));
      // The last minute of request metrics is still in memory; the SLA report should not lose it.
      requestStats(ctx).flush();
      // Litestream holds a read transaction; stop it (after its final sync) before the last checkpoint.
      await replicator?.stop();
      ctx.close();
      ctx.log.info("svc stopped");
    })());
  return { url, app, replicator, stop };
}

function listen(app: AnyElysia, ctx: Context): void {
  const { hostname, port } = listenParts(ctx.config.listen);
  app.listen({
    hostname,
    port,
    development: false,
    // Elysia turns SO_REUSEPORT on by default; a second svc on the same port would then share it
    // (and run a second scheduler on the same database). One process per port: fail instead.
    reusePort: false,
    maxRequestBodySize: ctx.config.max_body_bytes + BODY_LIMIT_MARGIN,
    // Long upstream calls (inference, sandboxes) can be quiet for a while; 255 s is Bun's maximum.
    idleTimeout: 255,
  });
}
