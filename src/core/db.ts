/**
 * The one SQLite database (bun:sqlite). The pragmas are the ones WAL mode and Litestream need:
 * WAL so readers never block the writer, busy_timeout so a second process (the CLI, Litestream)
 * waits instead of failing, synchronous=NORMAL which is durable in WAL mode up to the last
 * checkpointed commit, and foreign keys on.
 */
import { Database } from "bun:sqlite";

export type Db = Database;

// db.query() caches prepared statements in an LRU of MAX_QUERY_CACHE_SIZE (20 by default). One
// metered request runs well over 20 distinct statements (auth, meter, ledger, receipts, outbox),
// so at 20 every statement was evicted before its next use and compiled again on every call —
// a sixth of the CPU of a metered inference call (bench/README.md, bench/inference.ts). The
// application has a few hundred distinct statements; they all stay prepared.
Database.MAX_QUERY_CACHE_SIZE = Math.max(Database.MAX_QUERY_CACHE_SIZE, 2048);

export const PRAGMAS = [
  "PRAGMA journal_mode = WAL",
  "PRAGMA busy_timeout = 5000",
  "PRAGMA synchronous = NORMAL",
  "PRAGMA foreign_keys = ON",
  // Savepoint sub-journals and statement journals in memory, not in temp files: every grouped
  // meter call runs in a savepoint (core/transaction.ts), and its journal is a few pages.
  "PRAGMA temp_store = MEMORY",
] as const;

/**
 * A loadable SQLite extension (a shared library) and its entry point. Core loads what it is
 * given; the area that needs one names the path (its module's sqliteExtensions), so core imports
 * no area.
 */
export interface SqliteExtension {
  path: string;
  /** sqlite3_<name>_init; SQLite derives it from the file name when left out. */
  entryPoint?: string;
}

export interface OpenDbOptions {
  readonly?: boolean;
  /**
   * Loaded right after the pragmas, before the caller runs anything else: migrations may create
   * or alter the extension's virtual tables, and every statement touching one needs the module.
   */
  extensions?: readonly SqliteExtension[];
}

export function openDb(path: string, options: OpenDbOptions = {}): Db {
  const db = options.readonly
    ? new Database(path, { readonly: true, strict: true })
    : new Database(path, { create: true, readwrite: true, strict: true });
  try {
    for (const pragma of PRAGMAS) {
      if (options.readonly && pragma.includes("journal_mode")) continue;
      db.run(pragma);
    }
    for (const ext of options.extensions ?? []) db.loadExtension(ext.path, ext.entryPoint);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * Checkpoints what it can and closes. PASSIVE never waits: Litestream keeps a read
 * transaction open, and a blocking checkpoint would stall every CLI command for the whole
 * busy timeout. The last connection to close checkpoints fully and removes the -wal file.
 */
export function closeDb(db: Db): void {
  try {
    db.run("PRAGMA wal_checkpoint(PASSIVE)");
  } catch {
    // Harmless: SQLite replays the WAL on the next open.
  }
  db.close();
}

export function integrityCheck(db: Db): string[] {
  const rows = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
  const problems = rows.map((r) => r.integrity_check).filter((v) => v !== "ok");
  return problems;
}
