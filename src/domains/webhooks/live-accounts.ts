/**
 * The accounts that have a live (enabled) webhook, as this process last read them: the event
 * fan-out looks at the outbox right after a commit only when an event of such an account was
 * published (delivery.ts). A metered call publishes one receipt_minted event each; for an
 * account without webhooks, reading the outbox back found nothing to deliver, on every call
 * (bench/README.md).
 *
 * Kept current two ways: this process's own changes bump a generation (service.ts calls
 * webhooksChanged in the transaction that writes the table: create, disable, revoke, enable),
 * and another process's commit changes SQLite's data_version on this connection — then the
 * set is read again. Reading it late only delays a delivery to the periodic sweep (which scans
 * every event whatever this set says); it never loses one.
 */
import type { Context } from "../../context.ts";

interface Snapshot {
  dataVersion: number;
  generation: number;
  accounts: Set<string>;
}

const generations = new WeakMap<Context, number>();
const snapshots = new WeakMap<Context, Snapshot>();

/** This process changed the webhooks table: read the set again next time. */
export function webhooksChanged(ctx: Context): void {
  generations.set(ctx, (generations.get(ctx) ?? 0) + 1);
}

export function accountsWithWebhooks(ctx: Context): Set<string> {
  const dataVersion = ctx.db.query<{ data_version: number }, []>("PRAGMA data_version").get()!.data_version;
  const generation = generations.get(ctx) ?? 0;
  const known = snapshots.get(ctx);
  if (known && known.dataVersion === dataVersion && known.generation === generation) return known.accounts;
  const accounts = new Set(ctx.db.query<{ account_id: string }, []>("SELECT DISTINCT account_id FROM webhooks WHERE disabled_at IS NULL").all().map((r) => r.account_id));
  snapshots.set(ctx, { dataVersion, generation, accounts });
  return accounts;
}
