/**
 * Forward-only migrations, applied in order on every start and recorded in schema_migrations
 * with a checksum. A database that was migrated by a newer build, or whose recorded migration
 * statements have since changed, is refused: both mean this binary does not understand the
 * schema.
 *
 * The checksum covers the statements, not the comment lines (whole lines starting with --), so
 * a file's header can be kept current (its table owners, docs/architecture.md) without
 * refusing every database it was applied to. Builds before that checksummed the whole text; a
 * migration lists those checksums in `earlier`, each with the statements checksum it then had,
 * so an old record is accepted only while the statements are still the same.
 */
import type { Db } from "./db.ts";
import { sha256Hex } from "./secrets.ts";

export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
  /** Checksums older builds recorded for this file (whole text), with its statementsChecksum then. */
  earlier?: { checksum: string; statements: string }[];
}

/** sha256 of the statements: whole-line comments, blank lines and trailing spaces left out. */
export function statementsChecksum(sql: string): string {
  const lines = sql.split("\n").map((l) => l.trimEnd());
  return sha256Hex(lines.filter((l) => l !== "" && !l.trimStart().startsWith("--")).join("\n"));
}

const recordMatches = (file: MigrationFile, recorded: string): boolean => {
  const statements = statementsChecksum(file.sql);
  return recorded === statements || (file.earlier ?? []).some((e) => e.checksum === recorded && e.statements === statements);
};

export interface MigrationResult {
  applied: string[];
  current: number;
}

export class MigrationError extends Error {}

export function applyMigrations(db: Db, files: MigrationFile[], now: number = Date.now()): MigrationResult {
  db.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    checksum   TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`);
  const ordered = [...files].sort((a, b) => a.version - b.version);
  ordered.forEach((f, i) => {
    if (f.version !== i + 1) throw new MigrationError(`migration versions must be 1..n without gaps; found ${f.version} at position ${i + 1}`);
  });

  const recorded = db.query<{ version: number; name: string; checksum: string }, []>("SELECT version, name, checksum FROM schema_migrations ORDER BY version").all();
  const known = new Map(ordered.map((f) => [f.version, f]));
  for (const row of recorded) {
    const file = known.get(row.version);
    if (!file) throw new MigrationError(`database is at migration ${row.version} (${row.name}), newer than this build knows; upgrade svc`);
    if (!recordMatches(file, row.checksum)) throw new MigrationError(`migration ${row.name}'s statements changed after it was applied; migrations are forward-only, add a new one instead`);
  }

  const done = new Set(recorded.map((r) => r.version));
  const applied: string[] = [];
  const insert = db.prepare("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)");
  for (const file of ordered) {
    if (done.has(file.version)) continue;
    db.transaction(() => {
      db.run(file.sql);
      insert.run(file.version, file.name, statementsChecksum(file.sql), now);
    })();
    applied.push(file.name);
  }
  return { applied, current: ordered.length };
}

export function currentVersion(db: Db): number {
  const exists = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!exists) return 0;
  const row = db.query<{ v: number | null }, []>("SELECT max(version) AS v FROM schema_migrations").get();
  return row?.v ?? 0;
}
