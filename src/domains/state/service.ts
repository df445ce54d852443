/**
 * Sealed durable state: small JSON values an agent keeps between calls, per account, namespace
 * and key. The rules:
 *
 * - Values are sealed at rest (core/seal.ts: AES-256-GCM, a fresh nonce per write) with the AAD
 *   bound to the account, namespace and key, so a sealed value copied to another row fails to
 *   open. The plaintext never reaches svc.db, its WAL or a replica. Keys and namespaces are in
 *   clear: they are looked up and listed.
 * - Account-scoped: another account's key is "not found", like a key that does not exist.
 * - 10,000 keys per account (a new key beyond it is refused 409 state_key_limit_reached; writing
 *   an existing key is always allowed); a value's JSON text at most 256 KiB (413 value_too_large).
 * - Optimistic concurrency: every write has a version (1, 2, … per key) and an ETag that is
 *   unique to the write ("<version>-<digest of the sealed value>"). If-Match with an ETag or a
 *   bare version (or *: the key must exist), and If-None-Match: * (the key must not exist), make a
 *   PUT or DELETE conditional; a failed condition answers 412 precondition_failed and changes
 *   nothing. The condition is checked in the write's own transaction.
 */
import { ApiError, notFound } from "../../core/errors.ts";
import { sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { DEFAULT_NAMESPACE, MAX_KEYS_LISTED, MAX_KEYS_PER_ACCOUNT, MAX_VALUE_BYTES } from "./limits.ts";

interface Row {
  account_id: string;
  namespace: string;
  key: string;
  value: string;
  value_bytes: number;
  version: number;
  created_at: number;
  updated_at: number;
}

export interface StateEntry {
  key: string;
  namespace: string;
  value: unknown;
  version: number;
  updated_at: string;
}

export interface StateWrite {
  key: string;
  namespace: string;
  version: number;
  created: boolean;
  updated_at: string;
}

/** What an operator sees of a key without its value. */
export interface StateKeyInfo {
  key: string;
  namespace: string;
  version: number;
  value_bytes: number;
  created_at: string;
  updated_at: string;
}

export interface Conditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Binds a sealed value to its row: JSON, so no choice of names can make two rows' AADs equal. */
const aad = (accountId: string, namespace: string, key: string): string => JSON.stringify(["state_entries", accountId, namespace, key]);

/** Unique to one write: the version, and a digest of the sealed value (whose nonce is random). */
export const etagOf = (row: Pick<Row, "version" | "value">): string => `"${row.version}-${sha256Hex(row.value).slice(0, 16)}"`;

export const keyLimitReached = (): ApiError =>
  new ApiError(409, "state_key_limit_reached", `this account holds ${MAX_KEYS_PER_ACCOUNT.toLocaleString("en")} state keys, the most allowed; delete keys before adding new ones (writing an existing key is allowed)`, {
    limit: MAX_KEYS_PER_ACCOUNT,
  });

export const valueTooLarge = (bytes: number): ApiError =>
  new ApiError(413, "value_too_large", `value: its JSON text is ${bytes} bytes; at most ${MAX_VALUE_BYTES} (256 KiB)`, { param: "value", limit_bytes: MAX_VALUE_BYTES, value_bytes: bytes });

const preconditionFailed = (header: string, current: Row | null): ApiError =>
  new ApiError(412, "precondition_failed", `${header}: the key's current state does not match${current ? ` (it is at version ${current.version})` : " (it does not exist)"}; read it again and retry`, {
    header,
    current_version: current?.version ?? null,
  });

/** Entity tags of an If-Match / If-None-Match list ("*" aside), with W/ and quotes as sent. */
const tagsOf = (header: string): string[] =>
  header
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .filter(Boolean);

/** Whether a listed tag names the row's current write: its ETag, or its bare version ("3" or 3). */
function matches(row: Row, tags: string[]): boolean {
  const etag = etagOf(row);
  return tags.some((t) => t === etag || t.replace(/^"(.*)"$/, "$1") === String(row.version));
}

function checkConditions(row: Row | null, c: Conditions): void {
  if (c.ifMatch !== undefined) {
    const ok = c.ifMatch.trim() === "*" ? row !== null : row !== null && matches(row, tagsOf(c.ifMatch));
    if (!ok) throw preconditionFailed("if-match", row);
  }
  if (c.ifNoneMatch !== undefined) {
    const fails = c.ifNoneMatch.trim() === "*" ? row !== null : row !== null && matches(row, tagsOf(c.ifNoneMatch));
    if (fails) throw preconditionFailed("if-none-match", row);
  }
}

function readRow(ctx: Context, accountId: string, namespace: string, key: string): Row | null {
  return ctx.db.query<Row, [string, string, string]>("SELECT * FROM state_entries WHERE account_id = ? AND namespace = ? AND key = ?").get(accountId, namespace, key);
}

/** Writes a value (creating the key or replacing its value); returns the write and its ETag. */
export function putState(
  ctx: Context,
  accountId: string,
  input: { key: string; namespace?: string; value: unknown } & Conditions,
): { write: StateWrite; etag: string } {
  const namespace = input.namespace ?? DEFAULT_NAMESPACE;
  const { key } = input;
  const text = JSON.stringify(input.value === undefined ? null : input.value);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_VALUE_BYTES) throw valueTooLarge(bytes);
  // Sealed before the transaction: the write lock is held for the row only.
  const sealed = ctx.sealer.seal(text, aad(accountId, namespace, key));
  const now = ctx.clock.now();
  return ctx.tx.run(() => {
    const current = readRow(ctx, accountId, namespace, key);
    checkConditions(current, input);
    if (!current) {
      const held = ctx.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM state_entries WHERE account_id = ?").get(accountId)!.n;
      if (held >= MAX_KEYS_PER_ACCOUNT) throw keyLimitReached();
    }
    const row = ctx.db
      .query<Row, [string, string, string, string, number, number, number]>(
        `INSERT INTO state_entries (account_id, namespace, key, value, value_bytes, version, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?7)
         ON CONFLICT (account_id, namespace, key) DO UPDATE SET value = excluded.value, value_bytes = excluded.value_bytes, version = version + 1, updated_at = excluded.updated_at
         RETURNING *`,
      )
      .get(accountId, namespace, key, sealed, bytes, now, now)!;
    return { write: { key, namespace, version: row.version, created: !current, updated_at: iso(row.updated_at) }, etag: etagOf(row) };
  });
}

/** The value of a key (404 for a missing key and for another account's alike). */
export function getState(ctx: Context, accountId: string, key: string, namespace = DEFAULT_NAMESPACE): { entry: StateEntry; etag: string } {
  const row = readRow(ctx, accountId, namespace, key);
  if (!row) throw notFound("state key");
  const value: unknown = JSON.parse(ctx.sealer.openText(row.value, aad(accountId, namespace, key)));
  return { entry: { key, namespace, value, version: row.version, updated_at: iso(row.updated_at) }, etag: etagOf(row) };
}

/** Deletes a key (404 when there is none), under the same conditions as a PUT. */
export function deleteState(ctx: Context, accountId: string, key: string, namespace = DEFAULT_NAMESPACE, conditions: Conditions = {}): void {
  ctx.tx.run(() => {
    const current = readRow(ctx, accountId, namespace, key);
    if (!current) throw notFound("state key");
    checkConditions(current, conditions);
    ctx.db.query("DELETE FROM state_entries WHERE account_id = ? AND namespace = ? AND key = ?").run(accountId, namespace, key);
  });
}

/** Upper bound of a prefix range: every key character is below 0x7f (limits.ts). */
const prefixEnd = (prefix: string): string => `${prefix}\x7f`;

/**
 * Key names of a namespace (never values), ascending byte order, at most 1,000: beyond that the
 * first 1,000, with `truncated` and the namespace's `total` so the caller can tell.
 */
export function listStateKeys(
  ctx: Context,
  accountId: string,
  namespace = DEFAULT_NAMESPACE,
  options: { prefix?: string } = {},
): { keys: string[]; namespace: string; truncated: boolean; total: number } {
  const prefix = options.prefix ?? "";
  const keys = ctx.db
    .query<{ key: string }, [string, string, string, string, number]>(
      "SELECT key FROM state_entries WHERE account_id = ? AND namespace = ? AND key >= ? AND key < ? ORDER BY key LIMIT ?",
    )
    .all(accountId, namespace, prefix, prefixEnd(prefix), MAX_KEYS_LISTED + 1)
    .map((r) => r.key);
  const truncated = keys.length > MAX_KEYS_LISTED;
  const total = truncated
    ? ctx.db
        .query<{ n: number }, [string, string, string, string]>("SELECT count(*) AS n FROM state_entries WHERE account_id = ? AND namespace = ? AND key >= ? AND key < ?")
        .get(accountId, namespace, prefix, prefixEnd(prefix))!.n
    : keys.length;
  return { keys: keys.slice(0, MAX_KEYS_LISTED), namespace, truncated, total };
}

/** For operators (svc state list): keys with their sizes and times, never values; one namespace or all, at most `limit`. */
export function listStateKeyInfo(ctx: Context, accountId: string, options: { namespace?: string; limit?: number } = {}): StateKeyInfo[] {
  const limit = options.limit ?? MAX_KEYS_LISTED;
  const rows = options.namespace
    ? ctx.db
        .query<Row, [string, string, number]>("SELECT * FROM state_entries WHERE account_id = ? AND namespace = ? ORDER BY key LIMIT ?")
        .all(accountId, options.namespace, limit)
    : ctx.db.query<Row, [string, number]>("SELECT * FROM state_entries WHERE account_id = ? ORDER BY namespace, key LIMIT ?").all(accountId, limit);
  return rows.map((r) => ({ key: r.key, namespace: r.namespace, version: r.version, value_bytes: r.value_bytes, created_at: iso(r.created_at), updated_at: iso(r.updated_at) }));
}

/** An account's totals: keys (against the cap), namespaces, value bytes. */
export function stateUsage(ctx: Context, accountId: string): { keys: number; namespaces: number; value_bytes: number; limit: number } {
  const row = ctx.db
    .query<{ keys: number; namespaces: number; bytes: number | null }, [string]>(
      "SELECT count(*) AS keys, count(DISTINCT namespace) AS namespaces, sum(value_bytes) AS bytes FROM state_entries WHERE account_id = ?",
    )
    .get(accountId)!;
  return { keys: row.keys, namespaces: row.namespaces, value_bytes: row.bytes ?? 0, limit: MAX_KEYS_PER_ACCOUNT };
}
