import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { migrations } from "../../migrations/index.ts";
import { openDb } from "../../src/core/db.ts";
import { applyMigrations } from "../../src/core/migrate.ts";
import { tempDir } from "../support/harness.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0));

describe("migration 0057: a key's lifetime spend is the sum of its months", () => {
  test("what a key had spent is unchanged: its months' sum plus what it carries", () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = openDb(join(dir, "t.db"));
    applyMigrations(db, migrations.filter((m) => m.version < 57));
    db.run("INSERT INTO accounts (id, created_at) VALUES ('acct_1', 0)");
    const key = (id: string, spent: number) =>
      db.query("INSERT INTO api_keys (id, account_id, token_sha256, prefix, created_at, total_spent_micro_usd) VALUES (?, 'acct_1', ?, 'svc_x', 0, ?)").run(id, `sha-${id}`, spent);
    // Agreeing counters (the normal case), a counter ahead of its months, and a key with no months.
    key("key_a", 300);
    key("key_b", 500);
    key("key_c", 70);
    const month = (id: string, m: string, spent: number) => db.query("INSERT INTO key_spend (key_id, month, spent_micro_usd) VALUES (?, ?, ?)").run(id, m, spent);
    month("key_a", "2026-10", 100);
    month("key_a", "2026-11", 200);
    month("key_b", "2026-11", 300);

    applyMigrations(db, migrations);
    const lifetime = db.query<{ id: string; carried: number; lifetime: number }, []>(
      `SELECT id, spent_carried_micro_usd AS carried,
              spent_carried_micro_usd + coalesce((SELECT sum(spent_micro_usd) FROM key_spend WHERE key_id = api_keys.id), 0) AS lifetime
       FROM api_keys ORDER BY id`,
    );
    expect(lifetime.all()).toEqual([
      { id: "key_a", carried: 0, lifetime: 300 },
      { id: "key_b", carried: 200, lifetime: 500 },
      { id: "key_c", carried: 70, lifetime: 70 },
    ]);
    db.close();
  });
});
