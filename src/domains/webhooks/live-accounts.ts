/**
 * The accounts that have a live (enabled) webhook: the event fan-out looks at the outbox right
 * after a commit only when an event of such an account was published (delivery.ts). A metered
 * call publishes one receipt_minted event each; for an account without webhooks, reading the
 * outbox back found nothing to deliver, on every call (bench/README.md).
 *
 * Served by the read cache (core/read-cache.ts): the webhooks' trigger (migration 0054) moves its
 * counter whenever a webhook is made, removed, enabled or disabled, by this process or another;
 * an event is published only after a commit of this process, when the cache reads the counter
 * again. Reading the set late would only delay a delivery to the periodic sweep (which scans
 * every event whatever this set says); it never loses one.
 */
import type { Context } from "../../context.ts";

export function accountsWithWebhooks(ctx: Context): Set<string> {
  return ctx.reads.get("webhooks.live_accounts", "", () =>
    new Set(ctx.db.query<{ account_id: string }, []>("SELECT DISTINCT account_id FROM webhooks WHERE disabled_at IS NULL").all().map((r) => r.account_id)),
  );
}
