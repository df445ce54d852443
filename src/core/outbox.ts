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

const byTypeName = (counts: Map<string, number>): Record<string, number> => Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export class Outbox {
  private readonly insert;
  private readonly expanders = new Map<string, Expander>();
  /** All-time events per type up to seq `upto`, committed (countsByType). */
  private readonly tally = { upto: 0, byType: new Map<string, number>() };

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

  /**
   * Events recorded per type, all of them or those created at or after `sinceMs` (operator
   * metrics). Counted without an index on type, which every event's insert had to write (one
   * page per metered call): all-time counts are a tally this process keeps, brought up to date
   * from the rows after the last seq it counted (seqs commit in order, one writer at a time); a
   * window is counted from its first seq on, found by bisecting seq (created_at rises with it).
   */
  countsByType(sinceMs = 0): Record<string, number> {
    if (sinceMs > 0) {
      const from = this.firstSeqAtOrAfter(sinceMs);
      return from === null ? {} : this.countFrom(from - 1, new Map());
    }
    // Inside a write transaction the rows after the tally may yet roll back: counted, not kept.
    if (this.tx.active) return this.countFrom(this.tally.upto, new Map(this.tally.byType));
    const top = this.db.query<{ top: number | null }, []>("SELECT max(seq) AS top FROM outbox_events").get()?.top ?? 0;
    if (top > this.tally.upto) {
      this.countFrom(this.tally.upto, this.tally.byType, top);
      this.tally.upto = top;
    }
    return byTypeName(this.tally.byType);
  }

  /** Adds the events with afterSeq < seq (≤ upTo) to `into`, per type; returns them sorted by type. */
  private countFrom(afterSeq: number, into: Map<string, number>, upTo = Number.MAX_SAFE_INTEGER): Record<string, number> {
    const rows = this.db
      .query<{ type: string; n: number }, [number, number]>("SELECT type, count(*) AS n FROM outbox_events WHERE seq > ? AND seq <= ? GROUP BY type")
      .all(afterSeq, upTo);
    for (const r of rows) into.set(r.type, (into.get(r.type) ?? 0) + r.n);
    return byTypeName(into);
  }

  /** The first event's seq created at or after `ms` (null: none), in O(log n) primary-key reads (min and max apart: together they would scan). */
  private firstSeqAtOrAfter(ms: number): number | null {
    const bounds = this.db.query<{ lo: number | null; hi: number | null }, []>("SELECT (SELECT min(seq) FROM outbox_events) AS lo, (SELECT max(seq) FROM outbox_events) AS hi").get();
    if (bounds?.lo == null || bounds.hi == null) return null;
    const at = this.db.query<{ seq: number; created_at: number }, [number]>("SELECT seq, created_at FROM outbox_events WHERE seq >= ? ORDER BY seq LIMIT 1");
    let [lo, hi] = [bounds.lo, bounds.hi];
    let found: number | null = null;
    while (lo <= hi) {
      const mid = Math.floor((lo + hi) / 2);
      const row = at.get(mid);
      if (!row || row.seq > hi) hi = mid - 1;
      else if (row.created_at >= ms) (found = row.seq), (hi = mid - 1);
      else lo = row.seq + 1;
    }
    return found;
  }
}
