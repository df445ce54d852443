#!/usr/bin/env bun
/**
 * docs/routes.md: every route svc can mount — method, path, authentication class, area, and the
 * file that declares it — generated from a mounted app, so a newcomer goes from a path to its
 * code in seconds. test/routes-index.test.ts fails when the checked-in file is not current.
 *
 *   bun run docs:routes          rewrite docs/routes.md
 *
 * How each column is found, from what is served rather than from what the code says of itself:
 * the routes are those of an app with every optional group configured (admin and metrics
 * tokens, passkeys, the assistant); a route absent from an app on the default configuration is
 * marked "when configured". The area is the module whose route groups hold the route. The
 * authentication class is what the route answers a request carrying no credential (401 naming
 * the credential it wants, or public). The file is the one in the area's folder that registers
 * the route's method and path under its group's prefix.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { AnyElysia } from "elysia";
import { buildApp } from "../src/app.ts";
import type { Config } from "../src/config.ts";
import { silentLogger } from "../src/core/log.ts";
import { modules } from "../src/domains/index.ts";
import { enabledModules } from "../src/module.ts";
import { loadConfig, openContext } from "../src/open.ts";
import { setupDataDir } from "../src/setup.ts";

const ROOT = join(import.meta.dir, "..");
export const ROUTES_DOC = join(ROOT, "docs/routes.md");

interface RouteRow {
  method: string;
  path: string;
  auth: string;
  area: string;
  file: string;
  mounted: "always" | "when configured";
}

/** An app on a fresh data dir, with `configure` applied; closed by the returned function. */
function appWith(configure: (c: Config) => void): { app: AnyElysia; groupsOf: (area: string) => AnyElysia[]; close: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "svc-routes-"));
  setupDataDir({ configPath: join(dir, "svc.toml"), dataDir: dir, replica: "off", adminToken: "routes-index-admin", metricsToken: "routes-index-metrics" });
  const config = loadConfig({ dataDir: dir }, {});
  config.rate_limit.public_per_minute = 0; // 0 = no limit: the probes below must not be refused with 429
  configure(config);
  const ctx = openContext(config, { log: silentLogger });
  const app = buildApp(ctx);
  const enabled = enabledModules(modules, config);
  return {
    app,
    groupsOf: (area) => enabled.find((m) => m.name === area)?.routes?.(ctx) ?? [],
    close: () => {
      ctx.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const everything = (c: Config) => {
  c.passkeys.rp_id = "example.com";
  c.passkeys.origin = "https://example.com";
  c.assistant.model = "routes-index-model";
};
const defaults = (c: Config) => {
  c.admin.token_sha256 = null;
  c.metrics.token_sha256 = null;
};

const CLASSES: [RegExp, string][] = [
  [/Bearer <an API key/, "api key"],
  [/Bearer <a session token/, "session"],
  [/Bearer <admin token>/, "admin"],
  [/Bearer <metrics token>/, "metrics"],
  [/Bearer <a node key/, "node"],
];

/** The class a route's answer to a request with no credential reveals. */
async function authClass(app: AnyElysia, method: string, path: string): Promise<string> {
  const url = `http://svc.test${path.replace(/:[A-Za-z0-9_]+/g, "x").replace(/\*$/, "x")}`;
  const res = await app.handle(new Request(url, { method }));
  const text = await res.text();
  if (res.status !== 401) return "public";
  return CLASSES.find(([pattern]) => pattern.test(text))?.[1] ?? "public";
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));

const quoted = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The file of the area that registers `method path`: a `.method("local")` call under one of its `prefix: "…"`. */
function declaringFile(area: string, method: string, path: string): string {
  const dir = area === "app" ? join(ROOT, "src") : join(ROOT, "src/domains", area);
  const files = area === "app" ? [join(ROOT, "src/meta-routes.ts")] : sourceFiles(dir);
  const found = files.filter((file) => {
    const source = readFileSync(file, "utf8");
    const prefixes = ["", ...[...source.matchAll(/prefix:\s*"([^"]*)"/g)].map((m) => m[1]!)];
    return prefixes.some((prefix) => path.startsWith(prefix) && new RegExp(`\\.${method.toLowerCase()}\\(\\s*"${quoted(path.slice(prefix.length))}"`).test(source));
  });
  return found.length === 1 ? relative(ROOT, found[0]!) : `src/domains/${area}/ (${found.length ? "several files" : "not found"})`;
}

export async function routeRows(): Promise<RouteRow[]> {
  const full = appWith(everything);
  const plain = appWith(defaults);
  try {
    const key = (method: string, path: string) => `${method} ${path}`;
    const always = new Set(plain.app.routes.map((r) => key(r.method, r.path)));
    const areaOf = new Map<string, string>();
    for (const m of modules) for (const group of full.groupsOf(m.name)) for (const r of group.routes) areaOf.set(key(r.method, r.path), m.name);
    const rows: RouteRow[] = [];
    for (const r of full.app.routes) {
      const area = areaOf.get(key(r.method, r.path)) ?? "app";
      rows.push({
        method: r.method,
        path: r.path,
        auth: await authClass(full.app, r.method, r.path),
        area,
        file: declaringFile(area, r.method, r.path),
        mounted: always.has(key(r.method, r.path)) ? "always" : "when configured",
      });
    }
    return rows.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  } finally {
    full.close();
    plain.close();
  }
}

export async function renderRoutesIndex(): Promise<string> {
  const rows = await routeRows();
  const lines = [
    "# Routes",
    "",
    "Every route svc can mount, with its authentication class (docs/api-conventions.md), its area",
    "(src/domains/<area>/, docs/architecture.md) and the file that declares it. Generated from a",
    "mounted app by `bun run docs:routes` (scripts/routes-index.ts); a test fails when this file",
    "is not current. \"when configured\": mounted only once its group is configured (an admin or",
    "metrics token, passkeys, the assistant's model); otherwise it answers 404 and is absent from",
    "the OpenAPI document.",
    "",
    `${rows.length} routes.`,
    "",
    "| Method | Path | Auth | Area | File | Mounted |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.method} | \`${r.path}\` | ${r.auth} | ${r.area} | ${r.file} | ${r.mounted} |`),
    "",
  ];
  return lines.join("\n");
}

if (import.meta.main) {
  writeFileSync(ROUTES_DOC, await renderRoutesIndex());
  console.log(`wrote ${relative(process.cwd(), ROUTES_DOC)}`);
}
