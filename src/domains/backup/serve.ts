/**
 * Replication while `svc serve` runs: started before the server listens, so every write it
 * accepts is being replicated, and stopped (after a final sync) once the scheduler has stopped
 * and before the last checkpoint, since Litestream holds a read transaction.
 */
import type { Context } from "../../context.ts";
import { findLitestream } from "./litestream.ts";
import { parseReplica } from "./replica-url.ts";
import { Replicator } from "./replicator.ts";

const running = new WeakMap<Context, Replicator>();

/** Replication, when configured: a missing litestream is reported, not fatal (the gateway still serves). */
export async function startReplication(ctx: Context): Promise<void> {
  const replica = parseReplica(ctx.config.backup.replica);
  if (!replica) return;
  const bin = findLitestream(ctx.config);
  if (!bin) {
    ctx.replication.update({ state: "not_installed", last_error: "litestream is not installed" });
    ctx.log.warn("replication is configured but litestream is not installed: the database is NOT being replicated (see docs/backup.md)");
    return;
  }
  const replicator = new Replicator(ctx, bin, replica);
  running.set(ctx, replicator);
  try {
    await replicator.start();
    ctx.log.info("replicating the database", { replica_kind: replica.kind });
  } catch (err) {
    // The supervisor keeps retrying with backoff; /v1/status and `svc backup status` show the error.
    ctx.log.error("litestream failed to start; retrying", { error: err instanceof Error ? err.message : String(err) });
  }
}

export async function stopReplication(ctx: Context): Promise<void> {
  const replicator = running.get(ctx);
  running.delete(ctx);
  await replicator?.stop();
}
