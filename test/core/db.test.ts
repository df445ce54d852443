import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "../../migrations/index.ts";
import { closeDb, integrityCheck, openDb } from "../../src/core/db.ts";
import { applyMigrations, currentVersion, MigrationError } from "../../src/core/migrate.ts";
import { tempDir } from "../support/harness.ts";

const dirs: string[] = [];
const freshDb = () => {
  const dir = tempDir();
  dirs.push(dir);
  return openDb(join(dir, "t.db"));
};
afterEach(() => dirs.splice(0));

describe("db", () => {
  test("opens with the pragmas WAL and Litestream need", () => {
    const db = freshDb();
    expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()!.journal_mode).toBe("wal");
    expect(db.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()!.timeout).toBe(5000);
    expect(db.query<{ synchronous: number }, []>("PRAGMA synchronous").get()!.synchronous).toBe(1); // NORMAL
    expect(db.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()!.foreign_keys).toBe(1);
    expect(integrityCheck(db)).toEqual([]);
    closeDb(db);
  });
});

describe("migrations", () => {
  test("the embedded list matches migrations/*.sql, numbered 1..n", () => {
    const files = readdirSync(join(import.meta.dir, "../../migrations")).filter((f) => f.endsWith(".sql")).sort();
    expect(migrations.map((m) => `${m.name}.sql`)).toEqual(files);
    migrations.forEach((m, i) => {
      expect(m.version).toBe(i + 1);
      expect(m.name.startsWith(String(i + 1).padStart(4, "0") + "_")).toBe(true);
      expect(m.sql.length).toBeGreaterThan(0);
    });
  });

  test("apply in order, are recorded, and a second run applies nothing", () => {
    const db = freshDb();
    const first = applyMigrations(db, migrations);
    expect(first.applied).toEqual(migrations.map((m) => m.name));
    expect(currentVersion(db)).toBe(migrations.length);
    expect(applyMigrations(db, migrations).applied).toEqual([]);
    const rows = db.query<{ version: number; checksum: string }, []>("SELECT version, checksum FROM schema_migrations").all();
    expect(rows.length).toBe(migrations.length);
  });

  test("a new migration is applied forward; a failing one leaves nothing half-written", () => {
    const db = freshDb();
    applyMigrations(db, [{ version: 1, name: "0001_a", sql: "CREATE TABLE a (x INTEGER)" }]);
    expect(() =>
      applyMigrations(db, [
        { version: 1, name: "0001_a", sql: "CREATE TABLE a (x INTEGER)" },
        { version: 2, name: "0002_b", sql: "CREATE TABLE b (y INTEGER); INSERT INTO nowhere VALUES (1);" },
      ]),
    ).toThrow();
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeNull();
    expect(currentVersion(db)).toBe(1);
    const ok = applyMigrations(db, [
      { version: 1, name: "0001_a", sql: "CREATE TABLE a (x INTEGER)" },
      { version: 2, name: "0002_b", sql: "CREATE TABLE b (y INTEGER)" },
    ]);
    expect(ok.applied).toEqual(["0002_b"]);
  });

  test("refuses an edited applied migration and a database newer than the build", () => {
    const db = freshDb();
    applyMigrations(db, [{ version: 1, name: "0001_a", sql: "CREATE TABLE a (x INTEGER)" }]);
    expect(() => applyMigrations(db, [{ version: 1, name: "0001_a", sql: "CREATE TABLE a (x TEXT)" }])).toThrow(MigrationError);
    applyMigrations(db, [
      { version: 1, name: "0001_a", sql: "CREATE TABLE a (x INTEGER)" },
      { version: 2, name: "0002_b", sql: "CREATE TABLE b (y INTEGER)" },
    ]);
    expect(() => applyMigrations(db, [{ version: 1, name: "0001_a", sql: "CREATE TABLE a (x INTEGER)" }])).toThrow(/newer than this build/);
    expect(() => applyMigrations(db, [{ version: 2, name: "0002_b", sql: "x" }])).toThrow(/without gaps/);
  });

  test("comment lines are outside the checksum; records of builds before the owner headers still match", () => {
    const db = freshDb();
    applyMigrations(db, migrations);
    // What a build before the headers recorded: the sha256 of each file's whole text then.
    // (Migrations added after the headers have no earlier record.)
    for (const m of migrations) if (m.earlier) db.query("UPDATE schema_migrations SET checksum = ? WHERE version = ?").run(m.earlier[0]!.checksum, m.version);
    expect(applyMigrations(db, migrations).applied).toEqual([]);
    const commented = migrations.map((m) => (m.version === 1 ? { ...m, sql: `-- a new comment line\n${m.sql}\n-- and another\n` } : m));
    expect(applyMigrations(db, commented).applied).toEqual([]);
    const edited = migrations.map((m) => (m.version === 1 ? { ...m, sql: m.sql.replace("CREATE TABLE jobs (", "CREATE TABLE jobs (\n  extra INTEGER,") } : m));
    expect(() => applyMigrations(db, edited)).toThrow(/statements changed after it was applied/);
  });

  test("the ledger is append-only at the database level", () => {
    const db = freshDb();
    applyMigrations(db, migrations);
    db.run("INSERT INTO accounts (id, created_at) VALUES ('acct_a', 0)");
    db.run("INSERT INTO ledger_entries (id, account_id, kind, amount_micro_usd, balance_after_micro_usd, held_after_micro_usd, created_at) VALUES ('le_1', 'acct_a', 'credit', 5, 5, 0, 0)");
    expect(() => db.run("UPDATE ledger_entries SET amount_micro_usd = 6")).toThrow(/append-only/);
    expect(() => db.run("DELETE FROM ledger_entries")).toThrow(/append-only/);
    expect(() => db.run("UPDATE accounts SET balance_micro_usd = -1")).toThrow(/CHECK/);
  });
});
