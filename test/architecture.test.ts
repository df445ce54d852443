/**
 * docs/architecture.md, enforced: the import rules, table ownership and the CLI's no-SQL rule
 * over the real tree (test/support/architecture-rules.ts), shown to catch each kind of
 * violation on a fixture tree, and the module list checked against the area folders.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { modules } from "../src/domains/index.ts";
import { checkArchitecture, formatViolations, importsOf, stringLiterals } from "./support/architecture-rules.ts";
import { tempDir } from "./support/harness.ts";

const ROOT = join(import.meta.dir, "..");
const AREAS = readdirSync(join(ROOT, "src/domains"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

describe("the real tree", () => {
  test("follows every rule", () => {
    const violations = checkArchitecture(ROOT);
    expect(formatViolations(ROOT, violations)).toBe("");
  });

  test("every area folder has a front door and a module, listed once in src/domains/index.ts under its folder's name", () => {
    for (const area of AREAS) {
      expect(existsSync(join(ROOT, "src/domains", area, "index.ts"))).toBe(true);
      expect(existsSync(join(ROOT, "src/domains", area, "module.ts"))).toBe(true);
    }
    expect(modules.map((m) => m.name).sort()).toEqual(AREAS);
  });

  test("a front door re-exports services, never the area's routes, CLI or module (which would import every area)", async () => {
    for (const area of AREAS) {
      const source = await Bun.file(join(ROOT, "src/domains", area, "index.ts")).text();
      const specs = importsOf(source).map((i) => i.spec);
      expect(specs.filter((s) => /(^|\/)(module|routes|[a-z-]*-routes|cli[a-z-]*)\.ts$/.test(s) || s.includes("/routes/"))).toEqual([]);
    }
  });

  test("each front door loads first in a fresh process (no import cycle reaches an uninitialised binding)", async () => {
    const runs = AREAS.map((area) =>
      Bun.spawn([process.execPath, "-e", `await import(${JSON.stringify(join(ROOT, "src/domains", area, "index.ts"))})`], { stdout: "ignore", stderr: "pipe" }),
    );
    const failures: string[] = [];
    await Promise.all(
      runs.map(async (p, i) => {
        const code = await p.exited;
        if (code !== 0) failures.push(`${AREAS[i]}: ${(await new Response(p.stderr).text()).split("\n").find((l) => /Error/.test(l)) ?? `exit ${code}`}`);
      }),
    );
    expect(failures).toEqual([]);
  });
});

/** A tiny tree with one violation of each kind, at known lines. */
function fixtureTree(): string {
  const root = tempDir("svc-arch");
  const files: Record<string, string> = {
    "migrations/0001_a.sql": ["-- 0001: fixture", "-- owner core: jobs", "-- owner alpha: alpha_items", "-- owner beta: beta_items", "", "CREATE TABLE jobs (id TEXT);", "CREATE TABLE alpha_items (id TEXT);", "CREATE TABLE beta_items (id TEXT);", "CREATE TABLE orphans (id TEXT);"].join("\n"),
    "src/domains/alpha/index.ts": 'export { listAlpha } from "./service.ts";\n',
    "src/domains/alpha/module.ts": "export const alphaModule = {};\n",
    "src/domains/alpha/service.ts": [
      "// FROM beta_items in a comment is not SQL",
      'import { betaThing } from "../beta/store.ts";',
      'import { openContext } from "../../open.ts";',
      "export function listAlpha(db: any) {",
      '  db.query("SELECT * FROM alpha_items").all();',
      "  return db.query(`SELECT a.id FROM alpha_items a",
      "    JOIN beta_items b ON b.id = a.id`).all();",
      "}",
    ].join("\n"),
    "src/domains/beta/index.ts": 'export { betaThing } from "./store.ts";\n',
    "src/domains/beta/module.ts": "export const betaModule = {};\n",
    "src/domains/beta/store.ts": ['export const betaThing = (db: any) => db.query("SELECT id FROM beta_items WHERE id = ?");', 'export const pattern = /"FROM alpha_items/;'].join("\n"),
    "src/domains/beta/cli.ts": ['import { betaThing } from "./store.ts";', 'export const run = (db: any) => db.query("SELECT count(*) FROM beta_items");'].join("\n"),
    "src/core/thing.ts": ['import { listAlpha } from "../domains/alpha/index.ts";', 'export const n = (db: any) => db.query("DELETE FROM alpha_items");'].join("\n"),
    "src/context.ts": 'import { betaThing } from "./domains/beta/index.ts";\n',
    "cli/tool.ts": ['import { Database } from "bun:sqlite";', 'new Database("x").query("UPDATE beta_items SET id = 1");'].join("\n"),
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("the checker, on a fixture tree", () => {
  test("reports each forbidden import, foreign table, CLI SQL and unowned table with its file and line", () => {
    const root = fixtureTree();
    const found = checkArchitecture(root).map((v) => `${v.rule} ${v.file}:${v.line}`);
    expect(found.sort()).toEqual(
      [
        "table-owner migrations/0001_a.sql:9", // orphans has no owner
        "front-door src/domains/alpha/service.ts:2", // beta's store.ts, not its index.ts
        "composition-root src/domains/alpha/service.ts:3",
        "foreign-table src/domains/alpha/service.ts:7", // the JOIN on the template's second line
        "core-imports src/core/thing.ts:1",
        "foreign-table src/core/thing.ts:2",
        "context-imports src/context.ts:1",
        "cli-sql src/domains/beta/cli.ts:2",
        "cli-sql cli/tool.ts:1", // bun:sqlite
        "cli-sql cli/tool.ts:2",
      ].sort(),
    );
  });

  test("messages say what to do instead", () => {
    const root = fixtureTree();
    const text = formatViolations(root, checkArchitecture(root));
    expect(text).toContain("src/domains/alpha/service.ts:2  [front-door] imports src/domains/beta/store.ts; outside the beta area, import src/domains/beta/index.ts");
    expect(text).toContain("src/domains/alpha/service.ts:7  [foreign-table] SQL names beta_items, owned by beta; call src/domains/beta/index.ts instead");
    expect(text).toContain('migrations/0001_a.sql:9  [table-owner] table orphans has no owner: add "-- owner <area>: orphans" to the file\'s header');
  });

  test("string literals skip comments and regex literals, and keep template text with its line", () => {
    const literals = stringLiterals(['// "not a string"', "const r = /\"[a-z]'/g;", "const s = `a ${f(`inner`)} b", 'c`; const t = "x";'].join("\n"));
    expect(literals).toEqual([
      { text: "inner", line: 3 },
      { text: "a ? b\nc", line: 3 },
      { text: "x", line: 4 },
    ]);
  });
});
