/**
 * The rules docs/architecture.md states, checked over a source tree (the real one, or a fixture
 * tree a test builds). Each violation names the file, the line and the rule:
 *
 *   core-imports      src/core/ imports nothing outside src/core/ (packages aside)
 *   context-imports   src/context.ts imports no area
 *   front-door        outside an area's folder, its code is imported only through its index.ts
 *                     (its module.ts only by the list, src/domains/index.ts)
 *   composition-root  area code never imports a composition root (src/open.ts, app.ts, …), which
 *                     imports every area: it gets a context or a CommandHost handed in instead
 *   foreign-table     SQL in an area names only tables its area owns (owners: the migration
 *                     headers, `-- owner <area>: table, …`); core names only core tables, except
 *                     the listed money-path exceptions; the app's own files name none
 *   cli-sql           the CLI (cli/, src/cli/, an area's cli*.ts) runs no SQL: it calls services
 *   table-owner       every table a migration creates has exactly one owner, an area that exists
 *
 * SQL is found in string and template literals (comments are skipped): a table is named after
 * FROM, JOIN, INTO, UPDATE, TABLE or "ON t (", with SQL keywords in upper case as the code writes
 * them. Imports are read from import/export … from "…", import("…") and require("…").
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";

export interface Violation {
  rule: string;
  file: string;
  line: number;
  message: string;
}

/**
 * Core files that name an area's table, and why. Each is the money path: the check and the
 * write must happen in the one transaction the meter or the ledger owns (ARCHITECTURE.md §3).
 */
export const CORE_TABLE_EXCEPTIONS: Record<string, Record<string, string>> = {
  "src/core/ledger.ts": { accounts: "the running balance and held totals live on the account row, whose CHECKs make overspending impossible" },
  "src/core/meter.ts": {
    api_keys: "reserve checks and freezes the key chain, and settle adds to its lifetime spend, inside the meter's transaction",
    usage_events: "settle writes the usage event in the same transaction as the charge",
  },
};

/** Files that import every area: entry points may import them, area code must not. */
export const COMPOSITION_ROOTS = ["src/open.ts", "src/app.ts", "src/jobs.ts", "src/server.ts", "src/setup.ts", "src/doctor.ts", "src/domains/index.ts", "src/cli/host.ts"];

const SQL_TABLE = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE(?: IF NOT EXISTS)?)\s+([a-z_][a-z0-9_]*)|\bON\s+([a-z_][a-z0-9_]*)\s*\(/g;
const SQL_TEXT = /\b(SELECT\s|INSERT\s+(?:OR\s+\w+\s+)?INTO\s|UPDATE\s+[a-z_]+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(?:TABLE|INDEX|VIRTUAL)\s|PRAGMA\s)/;

interface Literal {
  text: string;
  line: number;
}

interface ImportRef {
  spec: string;
  line: number;
}

/** String and template literal texts with the line each starts on; comments and regex literals skipped. */
export function stringLiterals(source: string): Literal[] {
  const out: Literal[] = [];
  let line = 1;
  let i = 0;
  // Templates being read, innermost last: the text so far (each ${…} stands as "?") and the
  // braces open inside its current expression.
  const templates: { text: string; line: number; braces: number }[] = [];
  let prevSignificant = "";
  const n = source.length;
  /** Reads template text from i (just past ` or the } closing an expression) to the end or the next ${. */
  const readTemplateChunk = (): void => {
    const template = templates[templates.length - 1]!;
    while (i < n) {
      const c = source[i]!;
      if (c === "\\") {
        template.text += source.slice(i, i + 2);
        if (source[i + 1] === "\n") line++;
        i += 2;
        continue;
      }
      if (c === "`") {
        i++;
        templates.pop();
        out.push({ text: template.text, line: template.line });
        return;
      }
      if (c === "$" && source[i + 1] === "{") {
        i += 2;
        template.text += "?";
        template.braces = 0;
        return;
      }
      if (c === "\n") line++;
      template.text += c;
      i++;
    }
  };
  while (i < n) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "\n") {
      line++;
      i++;
      continue;
    }
    if (c === "/" && next === "/") {
      while (i < n && source[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? n : end + 2;
      for (let k = i; k < stop; k++) if (source[k] === "\n") line++;
      i = stop;
      continue;
    }
    if (c === '"' || c === "'") {
      const start = line;
      let text = "";
      i++;
      while (i < n && source[i] !== c && source[i] !== "\n") {
        if (source[i] === "\\") {
          text += source.slice(i, i + 2);
          i += 2;
          continue;
        }
        text += source[i];
        i++;
      }
      i++;
      out.push({ text, line: start });
      prevSignificant = "a";
      continue;
    }
    if (c === "`") {
      i++;
      templates.push({ text: "", line, braces: 0 });
      readTemplateChunk();
      prevSignificant = "a";
      continue;
    }
    const open = templates[templates.length - 1];
    if (open && c === "{") open.braces++;
    if (open && c === "}") {
      if (open.braces === 0) {
        i++;
        readTemplateChunk();
        prevSignificant = "a";
        continue;
      }
      open.braces--;
    }
    if (c === "/" && (prevSignificant === "" || "(,=:[!&|?{};+-*%<>~^".includes(prevSignificant))) {
      // A regex literal: skip it, character classes included, so its quotes start no string.
      i++;
      let inClass = false;
      while (i < n && source[i] !== "\n") {
        const r = source[i]!;
        if (r === "\\") {
          i += 2;
          continue;
        }
        if (r === "[") inClass = true;
        else if (r === "]") inClass = false;
        else if (r === "/" && !inClass) break;
        i++;
      }
      i++;
      while (i < n && /[a-z]/i.test(source[i]!)) i++;
      prevSignificant = "a";
      continue;
    }
    if (!/\s/.test(c)) {
      // "return /x/" starts a regex; any other word ends an operand.
      if (/[A-Za-z0-9_$]/.test(c)) {
        let j = i;
        while (j < n && /[A-Za-z0-9_$]/.test(source[j]!)) j++;
        const word = source.slice(i, j);
        prevSignificant = word === "return" || word === "typeof" || word === "case" ? "(" : "a";
        i = j;
        continue;
      }
      prevSignificant = c === ")" || c === "]" ? "a" : c;
    }
    i++;
  }
  return out;
}

/** Module specifiers a file imports, with their lines. */
export function importsOf(source: string): ImportRef[] {
  const out: ImportRef[] = [];
  const lineAt = (index: number) => source.slice(0, index).split("\n").length;
  const patterns = [/^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*"([^"]+)"/gm, /^\s*import\s*"([^"]+)"/gm, /\bimport\(\s*"([^"]+)"\s*\)/g, /\brequire\(\s*"([^"]+)"\s*\)/g];
  for (const pattern of patterns) {
    for (const m of source.matchAll(pattern)) out.push({ spec: m[1]!, line: lineAt(m.index! + m[0].indexOf(m[1]!)) });
  }
  return out;
}

/** Table → owning area (or "core"), from the migrations' `-- owner <area>: t1, t2` header lines. */
export function tableOwners(root: string): { owners: Map<string, string>; violations: Violation[] } {
  const owners = new Map<string, string>();
  const violations: Violation[] = [];
  const dir = join(root, "migrations");
  const areas = new Set(["core", ...listAreas(root)]);
  for (const name of existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sql")).sort() : []) {
    const file = `migrations/${name}`;
    const lines = readFileSync(join(dir, name), "utf8").split("\n");
    const declared = new Map<string, { owner: string; line: number }>();
    lines.forEach((text, i) => {
      const m = /^--\s*owner\s+([a-z][a-z0-9-]*):\s*(.+)$/.exec(text);
      if (!m) return;
      if (!areas.has(m[1]!)) violations.push({ rule: "table-owner", file, line: i + 1, message: `owner "${m[1]}" is neither core nor an area under src/domains/` });
      for (const table of m[2]!.split(",").map((t) => t.trim()).filter(Boolean)) {
        if (declared.has(table) || owners.has(table)) violations.push({ rule: "table-owner", file, line: i + 1, message: `table ${table} is given an owner twice` });
        declared.set(table, { owner: m[1]!, line: i + 1 });
      }
    });
    lines.forEach((text, i) => {
      const m = /\bCREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)/i.exec(text);
      if (m && !text.trimStart().startsWith("--") && !declared.has(m[1]!)) {
        violations.push({ rule: "table-owner", file, line: i + 1, message: `table ${m[1]} has no owner: add "-- owner <area>: ${m[1]}" to the file's header` });
      }
    });
    for (const [table, { owner }] of declared) owners.set(table, owner);
  }
  return { owners, violations };
}

function listAreas(root: string): string[] {
  const dir = join(root, "src/domains");
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((d) => statSync(join(dir, d)).isDirectory());
}

function walk(root: string, rel: string): string[] {
  const dir = join(root, rel);
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(rel, entry);
    if (statSync(join(root, path)).isDirectory()) out.push(...walk(root, path));
    else if (entry.endsWith(".ts") && !entry.endsWith(".d.ts")) out.push(path.split(sep).join("/"));
  }
  return out;
}

/** "src/domains/keys/store.ts" → "keys"; null outside the areas (index.ts of src/domains included). */
const areaOf = (file: string): string | null => /^src\/domains\/([^/]+)\//.exec(file)?.[1] ?? null;

const isCliFile = (file: string): boolean => file.startsWith("cli/") || file.startsWith("src/cli/") || /^src\/domains\/[^/]+\/cli[^/]*\.ts$/.test(file) || /^src\/domains\/[^/]+\/cli\//.test(file);

/** Resolves a relative specifier from `file` to a path relative to the root (with .ts), or null for packages. */
function resolveSpec(file: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  return normalize(join(dirname(file), spec)).split(sep).join("/");
}

export function checkArchitecture(root: string): Violation[] {
  const { owners, violations } = tableOwners(root);
  const files = [...walk(root, "src"), ...walk(root, "cli")];
  for (const file of files) {
    const source = readFileSync(join(root, file), "utf8");
    const area = areaOf(file);
    const inCore = file.startsWith("src/core/");
    for (const { spec, line } of importsOf(source)) {
      const target = resolveSpec(file, spec);
      if (target === null) continue;
      const targetArea = areaOf(target);
      if (inCore && !target.startsWith("src/core/")) {
        violations.push({ rule: "core-imports", file, line, message: `core imports ${target}; core imports nothing outside src/core/` });
      }
      if (file === "src/context.ts" && (targetArea !== null || target === "src/domains/index.ts")) {
        violations.push({ rule: "context-imports", file, line, message: `context.ts imports ${target}; it builds core services only (areas add theirs in wire())` });
      }
      const listed = file === "src/domains/index.ts" && target === `src/domains/${targetArea}/module.ts`;
      if (targetArea !== null && targetArea !== area && target !== `src/domains/${targetArea}/index.ts` && !listed) {
        violations.push({ rule: "front-door", file, line, message: `imports ${target}; outside the ${targetArea} area, import src/domains/${targetArea}/index.ts` });
      }
      if (area !== null && COMPOSITION_ROOTS.includes(target)) {
        violations.push({ rule: "composition-root", file, line, message: `area code imports ${target}, which imports every area; take the context (or CommandHost) handed in` });
      }
    }
    const cli = isCliFile(file);
    if (cli && /from\s+"bun:sqlite"/.test(source)) {
      const line = source.slice(0, source.indexOf("bun:sqlite")).split("\n").length;
      violations.push({ rule: "cli-sql", file, line, message: "the CLI opens the database itself; call the owning area's service instead" });
    }
    const coreExceptions = CORE_TABLE_EXCEPTIONS[file] ?? {};
    for (const literal of stringLiterals(source)) {
      if (!SQL_TEXT.test(literal.text)) continue;
      if (cli) {
        violations.push({ rule: "cli-sql", file, line: literal.line, message: `the CLI runs SQL ("${literal.text.trim().slice(0, 40)}…"); call the owning area's service instead` });
        continue;
      }
      for (const m of literal.text.matchAll(SQL_TABLE)) {
        const table = m[1] ?? m[2]!;
        const owner = owners.get(table);
        if (owner === undefined) continue;
        const line = literal.line + literal.text.slice(0, m.index).split("\n").length - 1;
        const mine = inCore ? owner === "core" || table in coreExceptions : owner === area;
        if (!mine) {
          violations.push({
            rule: "foreign-table",
            file,
            line,
            message: `SQL names ${table}, owned by ${owner}; call ${owner === "core" ? "the core mechanism" : `src/domains/${owner}/index.ts`} instead`,
          });
        }
      }
    }
  }
  return violations;
}

/** One line per violation, for a failing test's message. */
export const formatViolations = (root: string, list: Violation[]): string =>
  list.map((v) => `${relative(root, join(root, v.file))}:${v.line}  [${v.rule}] ${v.message}`).join("\n");
