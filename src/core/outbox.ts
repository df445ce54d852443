/**
 * The transactional outbox. emit() must run inside the transaction that makes the change the
 * event describes, so an event exists exactly when its change does (never one without the
 * other). After commit the event is published on the bus to wake deliverers; the table is the
 * record they read from, with a stable event id for receivers to drop duplicates.
 */
import type { Bus } from "./bus.ts";
import type { Clock } from "./clock.ts";
import type { Db } from "./db.ts";
import { newId } from "./ids.ts";
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

const fromRow = (r: Row): OutboxEvent => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> });

export class Outbox {
  private readonly insert;

  constructor(
    private readonly db: Db,
    private readonly tx: Transactions,
    private readonly clock: Clock,
    private readonly bus: Bus<OutboxEvent>,
  ) {
    this.insert = db.prepare<Row, [string, string, string | null, string, number]>(
      "INSERT INTO outbox_events (id, type, account_id, payload, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *",
    );
  }

  emit(type: string, accountId: string | null, payload: Record<string, unknown>): OutboxEvent {
    if (!this.tx.active) throw new Error(`outbox event ${type} emitted outside a transaction`);
    const row = this.insert.get(newId("evt"), type, accountId, JSON.stringify(payload), this.clock.now())!;
    const event = fromRow(row);
    this.tx.afterCommit(() => this.bus.publish(event));
    return event;
  }

  /** Events after `afterSeq` in commit order: what a deliverer resumes from. */
  since(afterSeq: number, limit = 500): OutboxEvent[] {
    return this.db
      .query<Row, [number, number]>("SELECT * FROM outbox_events WHERE seq > ? ORDER BY seq LIMIT ?")
      .all(afterSeq, limit)
      .map(fromRow);
  }

  /**
   * Events after `afterSeq` in commit order, payload left as its JSON text: for readers that look
   * at every event's type and parse few payloads (the webhook fan-out).
   */
  scan(afterSeq: number, limit: number): OutboxEventText[] {
    return this.db.query<OutboxEventText, [number, number]>("SELECT seq, id, type, account_id, payload, created_at FROM outbox_events WHERE seq > ? ORDER BY seq LIMIT ?").all(afterSeq, limit);
  }

  /** One account's events after `afterSeq` and created at or after `sinceMs`, in commit order, payload as JSON text. */
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
    return row ? fromRow(row) : null;
  }

  countsByType(sinceMs = 0): Record<string, number> {
    const rows = this.db
      .query<{ type: string; n: number }, [number]>("SELECT type, count(*) AS n FROM outbox_events WHERE created_at >= ? GROUP BY type ORDER BY type")
      .all(sinceMs);
    return Object.fromEntries(rows.map((r) => [r.type, r.n]));
  }
}
