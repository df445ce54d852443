/** svc migrate: apply pending migrations now (serve also does it on every start). */
import { existsSync } from "node:fs";
import { migrations } from "../migrations/index.ts";
import { paths } from "../src/config.ts";
import { closeDb, openDb } from "../src/core/db.ts";
import { applyMigrations } from "../src/core/migrate.ts";
import { type Command, CommandFailed, locationOptions } from "../src/cli/command.ts";
import { configFrom } from "../src/cli/host.ts";

export const migrateCommand: Command = {
  name: "migrate",
  summary: "Apply pending database migrations (serve does this on every start too)",
  options: locationOptions,
  run({ values }) {
    const config = configFrom(values);
    const { db: dbPath } = paths(config);
    if (!existsSync(dbPath)) throw new CommandFailed(`no database at ${dbPath}; run 'svc setup' first`);
    const db = openDb(dbPath);
    try {
      const { applied, current } = applyMigrations(db, migrations);
      for (const name of applied) console.log(`applied  ${name}`);
      console.log(applied.length ? `database is now at migration ${current}` : `database is up to date (migration ${current}, ${migrations.at(-1)!.name})`);
    } catch (err) {
      throw new CommandFailed(err instanceof Error ? err.message : String(err));
    } finally {
      closeDb(db);
    }
  },
};
