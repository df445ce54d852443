/**
 * Keyword search: one SQLite FTS5 table for every collection, holding each chunk's words in
 * clear, ranked by FTS5's bm25().
 *
 * Every word is indexed with its collection's key as a prefix ("c12x" + word), so the words of
 * two collections are different terms. That gives isolation by construction (a query can only
 * name its own collection's terms), and it keeps bm25's document frequencies per collection:
 * with shared terms, a tenant could learn whether other tenants' text contains a word from how
 * that word's rarity moves their own scores. What stays table-wide is bm25's row count and
 * average row length, i.e. the gateway's total chunk count and mean chunk length, never a word.
 *
 * The words are cut here, in JavaScript, not by an FTS5 tokenizer, so the prefix can be added:
 * NFKD with combining marks removed, lower case, runs of letters and digits. FTS5's `ascii`
 * tokenizer then keeps each prefixed word whole (it splits only on ASCII punctuation and spaces,
 * which the words no longer contain). A query goes through the same function and becomes an OR
 * of quoted terms, so query text can never be read as FTS5 syntax.
 *
 * The table is contentless (the text itself lives in memory_chunks) with contentless_delete=1,
 * so a chunk's row is deleted by rowid without handing back its words.
 */
import type { Database, SQLQueryBindings } from "bun:sqlite";
import type { FilterSql } from "./metadata-filter.ts";

/** Longer runs (hashes, base64) are not words anyone searches for, and would only bloat the index. */
const MAX_WORD_CHARS = 64;
/** The most distinct words of a query that are searched for. */
export const MAX_QUERY_WORDS = 64;

const MARKS = /\p{M}+/gu;
const WORDS = /[\p{L}\p{N}]+/gu;

/** The words of a text as the keyword index sees them. */
export function keywordWords(text: string): string[] {
  const folded = text.normalize("NFKD").replace(MARKS, "").toLowerCase();
  const out: string[] = [];
  for (const match of folded.matchAll(WORDS)) if (match[0].length <= MAX_WORD_CHARS) out.push(match[0]);
  return out;
}

const prefix = (collectionKey: number): string => `c${collectionKey}x`;

/** The FTS5 row text for a chunk of this collection. */
export function indexedText(collectionKey: number, text: string): string {
  const p = prefix(collectionKey);
  return keywordWords(text).map((w) => p + w).join(" ");
}

/** An FTS5 MATCH expression for the query, or null when the query has no words. */
export function matchExpression(collectionKey: number, queryText: string): string | null {
  const p = prefix(collectionKey);
  const words = [...new Set(keywordWords(queryText))].slice(0, MAX_QUERY_WORDS);
  return words.length ? words.map((w) => `"${p}${w}"`).join(" OR ") : null;
}

export function insertKeywordRow(db: Database, chunkId: number, collectionKey: number, text: string): void {
  db.query("INSERT INTO memory_fts (rowid, words) VALUES (?, ?)").run(chunkId, indexedText(collectionKey, text));
}

export function deleteKeywordRow(db: Database, chunkId: number): void {
  db.query("DELETE FROM memory_fts WHERE rowid = ?").run(chunkId);
}

export interface KeywordHit {
  chunkId: number;
  /** bm25 turned so that higher is better. */
  score: number;
}

/**
 * The best-ranked chunks of the collection for the query, at most `limit`. A metadata filter
 * narrows the matches inside the same statement, before the limit.
 */
export function keywordSearch(db: Database, collectionKey: number, queryText: string, limit: number, filter?: FilterSql): KeywordHit[] {
  const expression = matchExpression(collectionKey, queryText);
  if (!expression) return [];
  const rows = filter
    ? db
        .query<{ rowid: number; rank: number }, SQLQueryBindings[]>(
          `SELECT f.rowid, f.rank FROM memory_fts f
             JOIN memory_chunks c ON c.id = f.rowid
             JOIN memory_documents d ON d.key = c.document_key
            WHERE memory_fts MATCH ? AND ${filter.sql}
            ORDER BY f.rank LIMIT ?`,
        )
        .all(expression, ...filter.params, limit)
    : db
        .query<{ rowid: number; rank: number }, [string, number]>("SELECT rowid, rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?")
        .all(expression, limit);
  return rows.map((r) => ({ chunkId: r.rowid, score: -r.rank }));
}
