/**
 * The source sets' one table, source_sets: the entries as fingerprinted (JSON), the fingerprint,
 * the `public` flag. The only file that names it in SQL.
 */
import type { Context } from "../../context.ts";
import type { SourceEntry } from "./fingerprint.ts";

export interface SourceSetRecord {
  id: string;
  accountId: string;
  name: string;
  entries: SourceEntry[];
  fingerprint: string;
  isPublic: boolean;
  createdAt: number;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  entries: string;
  fingerprint: string;
  public: number;
  created_at: number;
}

const COLUMNS = "id, account_id, name, entries, fingerprint, public, created_at";

const recordOf = (r: Row): SourceSetRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  entries: JSON.parse(r.entries) as SourceEntry[],
  fingerprint: r.fingerprint,
  isPublic: r.public === 1,
  createdAt: r.created_at,
});

export function insertSet(ctx: Context, s: SourceSetRecord): void {
  ctx.db
    .query("INSERT INTO source_sets (id, account_id, name, entries, entry_count, fingerprint, public, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    .run(s.id, s.accountId, s.name, JSON.stringify(s.entries), s.entries.length, s.fingerprint, s.isPublic ? 1 : 0, s.createdAt);
}

export function setById(ctx: Context, id: string): SourceSetRecord | null {
  const row = ctx.db.query<Row, [string]>(`SELECT ${COLUMNS} FROM source_sets WHERE id = ?`).get(id);
  return row ? recordOf(row) : null;
}

/** One account's sets, newest first. */
export function setsOf(ctx: Context, accountId: string, limit: number): SourceSetRecord[] {
  return ctx.db.query<Row, [string, number]>(`SELECT ${COLUMNS} FROM source_sets WHERE account_id = ? ORDER BY seq DESC LIMIT ?`).all(accountId, limit).map(recordOf);
}

export function countSets(ctx: Context, accountId: string): number {
  return ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM source_sets WHERE account_id = ?").get(accountId)!.n;
}

export function deleteSet(ctx: Context, id: string): void {
  ctx.db.query("DELETE FROM source_sets WHERE id = ?").run(id);
}
