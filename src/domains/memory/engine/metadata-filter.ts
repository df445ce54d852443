/**
 * Metadata filters: `{"lang": "en", "year": 2024}` keeps chunks of documents whose metadata has
 * every one of those keys equal to that value. Values are JSON scalars (string, number, boolean,
 * null); equality is on the JSON form, so "1" does not match 1 and true does not match 1.
 *
 * It becomes one SQL condition on memory_documents (alias d). Metadata is written with
 * JSON.stringify and compared with SQLite's `->` (which returns the JSON text of a value), so both
 * sides are in the same form.
 */
import type { SQLQueryBindings } from "bun:sqlite";
import { invalidField } from "../../../core/errors.ts";

export type MetadataValue = string | number | boolean | null;
export type Metadata = Record<string, unknown>;
export type MetadataFilter = Record<string, MetadataValue>;

export interface FilterSql {
  sql: string;
  params: SQLQueryBindings[];
}

export const MAX_FILTER_KEYS = 16;
const KEY = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The SQL for a filter, or undefined for none; throws invalid_request naming the bad key. */
export function filterSql(filter: MetadataFilter | undefined): FilterSql | undefined {
  if (filter === undefined || filter === null) return undefined;
  if (typeof filter !== "object" || Array.isArray(filter)) throw invalidField("filter", "must be an object of key: value equality conditions");
  const entries = Object.entries(filter);
  if (!entries.length) return undefined;
  if (entries.length > MAX_FILTER_KEYS) throw invalidField("filter", `at most ${MAX_FILTER_KEYS} conditions`);
  const parts: string[] = [];
  const params: SQLQueryBindings[] = [];
  for (const [key, value] of entries) {
    if (!KEY.test(key)) throw invalidField(`filter.${key}`, "keys are 1-64 letters, digits, _ . : -");
    const kind = typeof value;
    if (value !== null && kind !== "string" && kind !== "boolean" && !(kind === "number" && Number.isFinite(value))) {
      throw invalidField(`filter.${key}`, "must be a string, a finite number, a boolean or null");
    }
    parts.push("d.metadata -> ? = ?");
    params.push(`$."${key}"`, JSON.stringify(value));
  }
  return { sql: parts.join(" AND "), params };
}

/** Refuses a bad filter (400 naming the key) without running anything: callers check before paying for an embedding. */
export const checkFilter = (filter: MetadataFilter | undefined): void => void filterSql(filter);

/** Checks document metadata: a JSON object (stored as given; only its top-level scalars can be filtered on). */
export function checkMetadata(metadata: unknown): Metadata {
  if (metadata === undefined || metadata === null) return {};
  if (typeof metadata !== "object" || Array.isArray(metadata)) throw invalidField("metadata", "must be a JSON object");
  return metadata as Metadata;
}
