/**
 * The transactional outbox. emit() must run inside the transaction that makes the change the
 * event describes, so an event exists exactly when its change does (never one without the
 * other). After commit the event is published on the bus to wake deliverers; the table is the
 * record they read from, with a stable event id for receivers to drop duplicates.
 *
 * Compact rows. An event whose payload copies a record written in the same transaction (a
 * receipt_minted event carries the signed receipt) may store only the record's key: the emitter
 * passes `stored`, and the area that owns the record registers an expander (`expandWith`) that
 * every read applies, so readers see the full payload exactly as emitted. The row and the record
 * commit together, so the expander always finds it. One event per metered call made the copy
 * ~1.4 KB of the ~4.4 KB each call added to the database (bench/README.md, bench/inference.ts).
 */
import type { Bus } from "./bus.ts";
import type { Clock } from "./clock.ts";
import type { Db } from "./db.ts";
import { newOrderedId } from "./ids.ts";
import type { Transactions } from "./transaction.ts";

export interface OutboxEvent {
  seq: number;
  id: string;
  type: string;
  account_id: string | null;
  payload: Record<string, unknown>;
  created_at: number;
}

/** An event with its payload still JSON text. */
export type OutboxEventText = Omit<OutboxEvent, "payload"> & { payload: string };

interface Row {
  seq: number;
  id: string;
  type: string;
  account_id: string | null;
  payload: string;
  created_at: number;
}

type Expander = (stored: Record<string, unknown>) => Record<string, unknown>;

export class Outbox {
  private readonly insert;
  private readonly expanders = new Map<string, Expander>();

  constructor(
    private readonly db: Db,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly bus: Bus<OutboxEvent>,
  ) {
    // No RETURNING: the row is what was inserted, its seq the rowid (seq is the INTEGER PRIMARY KEY).
    this.insert = db.prepare<never, [string, string, string | null, string, number]>("INSERT INTO outbox_events (id, type, account_id, payload, created_at) VALUES (?, ?, ?, ?, ?)");
  }

  /** Reads of `type` events pass their stored payload through `expand` (see the header). */
  expandWith(type: string, expand: Expander): void {
    this.expanders.set(type, expand);
  }

  /**
   * Queues an event in the current transaction. `stored`: the compact payload the row keeps
   * instead of `payload`, for a type with an expander that restores `payload` from it.
   */
  emit(type: string, accountId: string | null, payload: Record<string, unknown>, options: { stored?: Record<string, unknown> } = {}): OutboxEvent {
    if (!this.tx.active) throw new Error(`outbox event ${type} emitted outside a transaction`);
    if (options.stored && !this.expanders.has(type)) throw new Error(`outbox event ${type}: a compact payload needs an expander (expandWith)`);
    const id = newOrderedId("evt");
    const createdAt = this.clock.now();
    const { lastInsertRowid } = this.insert.run(id, type, accountId, JSON.stringify(options.stored ?? payload), createdAt);
    const event: OutboxEvent = { seq: Number(lastInsertRowid), id, type, account_id: accountId, payload, created_at: createdAt };
    this.tx.afterCommit(() => this.bus.publish(event));
    return event;
  }

  private fromRow(r: Row): OutboxEvent {
    const stored = JSON.parse(r.payload) as Record<string, unknown>;
    const expand = this.expanders.get(r.type);
    return { ...r, payload: expand ? expand(stored) : stored };
  }


  /** Events after `afterSeq` in commit order: what a deliverer resumes from. */
  since(afterSeq: number, limit = 500): OutboxEvent[] {
    return this.db
      .query<Row, [number, number]>("SELECT * FROM outbox_events WHERE seq > ? ORDER BY seq LIMIT ?")
      .all(afterSeq, limit)
      .map((r) => this.fromRow(r));
  }

  /**
   * Events after `afterSeq` in commit order, payload left as its JSON text AS STORED (compact for
   * types with an expander; get() gives the full one): for readers that look at every event's
   * type and parse few payloads (the webhook fan-out).
   */
  scan(afterSeq: number, limit: number): OutboxEventText[] {
    return this.db.query<OutboxEventText, [number, number]>("SELECT seq, id, type, account_id, payload, created_at FROM outbox_events WHERE seq > ? ORDER BY seq LIMIT ?").all(afterSeq, limit);
  }

  /** One account's events after `afterSeq` and created at or after `sinceMs`, in commit order, payload as stored JSON text (as scan). */
  scanAccount(accountId: string, afterSeq: number, sinceMs: number, limit: number): OutboxEventText[] {
    return this.db
      .query<OutboxEventText, [string, number, number, number]>(
        "SELECT seq, id, type, account_id, payload, created_at FROM outbox_events WHERE account_id = ? AND seq > ? AND created_at >= ? ORDER BY seq LIMIT ?",
      )
      .all(accountId, afterSeq, sinceMs, limit);
  }

  /** One event by its id. */
  get(id: string): OutboxEvent | null {
    const row = this.db.query<Row, [string]>("SELECT * FROM outbox_events WHERE id = ?").get(id);
    return row ? this.fromRow(row) : null;
  }

  countsByType(sinceMs = 0): Record<string, number> {
    const rows = this.db
      .query<{ type: string; n: number }, [number]>("SELECT type, count(*) AS n FROM outbox_events WHERE created_at >= ? GROUP BY type ORDER BY type")
      .all(sinceMs);
    return Object.fromEntries(rows.map((r) => [r.type, r.n]));
  }
}
