/**
 * The account's usage events (rows the meter writes at settle), as the API shows them, and the
 * filtered, keyset-paged listing behind GET /v1/usage/events (JSON and CSV alike).
 *
 * Paging is newest first on seq: a page asks for `seq < last seq seen`. seq only grows, and
 * SQLite commits writes one at a time in seq order, so events written while a client pages
 * land above the first page and can neither shift nor repeat rows of later pages.
 */
import { isoTime } from "../../core/clock.ts";
import { invalidCursor } from "../../core/cursor.ts";
import type { UsageEvent } from "../../core/meter.ts";
import type { Context } from "../../context.ts";

/** One usage event as every usage route shows it (JSON rows, CSV columns, SSE data). */
export interface UsageEventView {
  id: string;
  created_at: string;
  kind: string;
  resource: string | null;
  key_id: string | null;
  run_id: string | null;
  cost_micro_usd: number;
  reserved_micro_usd: number;
  status: string;
  units: Record<string, unknown>;
}

/** A usage_events row: like UsageEvent, with units still JSON text. */
export type UsageEventRow = Omit<UsageEvent, "units"> & { units: string };

export const EVENT_COLUMNS = "seq, id, account_id, key_id, kind, resource, run_id, cost_micro_usd, reserved_micro_usd, units, status, created_at";

export function eventView(e: UsageEvent | UsageEventRow): UsageEventView {
  return {
    id: e.id,
    created_at: isoTime(e.created_at),
    kind: e.kind,
    resource: e.resource,
    key_id: e.key_id,
    run_id: e.run_id,
    cost_micro_usd: e.cost_micro_usd,
    reserved_micro_usd: e.reserved_micro_usd,
    status: e.status,
    units: typeof e.units === "string" ? (JSON.parse(e.units) as Record<string, unknown>) : e.units,
  };
}

export interface EventFilters {
  kind?: string;
  keyId?: string;
  runId?: string;
  /** Inclusive, ms. */
  from?: number;
  /** Exclusive, ms. */
  to?: number;
}

export const EVENTS_LIMIT = { min: 1, max: 1000, default: 100 };

/**
 * The cursor is bound to the account AND the filters: a cursor minted for another query would
 * page a different row set from a position that means nothing there, so it answers 400.
 * The page size and the format (JSON or CSV) are not part of it: a client may change them.
 */
function cursorScope(accountId: string, f: EventFilters): string {
  return `GET /v1/usage/events\n${accountId}\n${JSON.stringify([f.kind ?? null, f.keyId ?? null, f.runId ?? null, f.from ?? null, f.to ?? null])}`;
}

export interface EventPage {
  rows: UsageEventRow[];
  next_cursor: string | null;
}

export function listEvents(ctx: Context, accountId: string, filters: EventFilters, page: { limit: number; cursor?: string }): EventPage {
  const scope = cursorScope(accountId, filters);
  const where = ["account_id = ?"];
  const args: (string | number)[] = [accountId];
  if (page.cursor !== undefined) {
    const [seq, ...rest] = ctx.cursors.decode(scope, page.cursor);
    if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1 || rest.length) throw invalidCursor();
    where.push("seq < ?");
    args.push(seq);
  }
  if (filters.kind !== undefined) (where.push("kind = ?"), args.push(filters.kind));
  if (filters.keyId !== undefined) (where.push("key_id = ?"), args.push(filters.keyId));
  if (filters.runId !== undefined) (where.push("run_id = ?"), args.push(filters.runId));
  if (filters.from !== undefined) (where.push("created_at >= ?"), args.push(filters.from));
  if (filters.to !== undefined) (where.push("created_at < ?"), args.push(filters.to));
  // One row past the page tells whether another page exists without a count.
  const rows = ctx.db
    .query<UsageEventRow, (string | number)[]>(`SELECT ${EVENT_COLUMNS} FROM usage_events WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT ?`)
    .all(...args, page.limit + 1);
  const more = rows.length > page.limit;
  if (more) rows.length = page.limit;
  return { rows, next_cursor: more ? ctx.cursors.encode(scope, [rows[rows.length - 1]!.seq]) : null };
}

/** The account's events after `afterSeq`, oldest first (SSE resume). */
export function eventsAfter(ctx: Context, accountId: string, afterSeq: number, limit: number): UsageEventRow[] {
  return ctx.db
    .query<UsageEventRow, [string, number, number]>(`SELECT ${EVENT_COLUMNS} FROM usage_events WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?`)
    .all(accountId, afterSeq, limit);
}
