/**
 * `svc serve` in one process: the HTTP server, the scheduler loop, the areas' serve hooks
 * (Litestream replication as a supervised child, among them), and a graceful stop. On SIGTERM:
 * stop accepting, let in-flight requests finish (up to shutdown_grace_secs), stop the scheduler
 * and hand unfinished jobs back to the queue, stop the areas in reverse order (the replica's
 * final sync last), then checkpoint and close the database.
 */
import { outboundLimit } from "./core/outbound-requests.ts";
import type { AnyElysia } from "elysia";
import { buildApp } from "./app.ts";
import { listenParts } from "./config.ts";
import type { Context } from "./context.ts";
import { modules } from "./domains/index.ts";
import { registerJobs } from "./jobs.ts";
import { Checkpointer } from "./core/checkpointer.ts";
import { enabledModules } from "./module.ts";

export interface RunningServer {
  url: string;
  app: AnyElysia;
  /** Stops everything; resolves when the database is closed. Safe to call twice. */
  stop(): Promise<void>;
}

/** How long a request of the server waits for another process to yield the money lease (docs/money.md): its event loop must not stall. */
const LEASE_WAIT_MS = 250;

/** Bun's own ceiling sits a little above ours, so our 413 (with its JSON body) is what clients normally see. */
const BODY_LIMIT_MARGIN = 64 * 1024;

export async function startServer(ctx: Context, options: { app?: AnyElysia } = {}): Promise<RunningServer> {
  registerJobs(ctx);
  const app = options.app ?? buildApp(ctx);
  const areas = enabledModules(modules, ctx.config).filter((m) => m.serve);
  // Started before listening (replication among them: by the time the server answers, every
  // write it accepts is being replicated); stopped in reverse order.
  const stopAreas = async () => {
    for (const m of [...areas].reverse()) await m.serve?.stop?.(ctx);
  };
  try {
    for (const m of areas) await m.serve?.start?.(ctx);
    listen(app, ctx);
  } catch (err) {
    await stopAreas();
    throw err;
  }
  const server = app.server!;
  ctx.scheduler.start();
  // WAL checkpoints on a thread of their own, not inside a request's COMMIT (core/checkpointer.ts).
  const checkpointer = ctx.config.database.checkpoints === "thread" ? new Checkpointer(ctx.db, ctx.paths.db, ctx.tx, ctx.log) : null;
  checkpointer?.start();
  // The money path: reservations stay in memory while this process spends alone (docs/money.md).
  ctx.ledger.lease.waitMs = LEASE_WAIT_MS;
  if (!ctx.ledger.lease.exclusive()) ctx.log.warn("another process spends from this database; reservations are written until it stops", { holder: ctx.ledger.lease.holder() });
  const url = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  ctx.log.info("svc serving", {
    url,
    public_url: ctx.config.public_url,
    version: ctx.version,
    data_dir: ctx.config.data_dir,
    outbound_requests: outboundLimit(),
  });

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
      // The areas' last words (request metrics still in memory, the replica's final sync) before the last checkpoint.
      await stopAreas();
      await checkpointer?.stop();
      ctx.close();
      ctx.log.info("svc stopped");
    })());
  return { url, app, stop };
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
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // Long upstream calls (inference, sandboxes) can be quiet for a while; 255 s is Bun's maximum.
    idleTimeout: 255,
  });
}
