#!/usr/bin/env bun
/**
 * After the test suite: which operations no test saw succeed through the harness's
 * served-vs-declared check (test/support/openapi-check.ts records each checked answer in the
 * file SVC_OPENAPI_COVERAGE names). test/run.sh runs this after `bun test` and fails when an
 * operation of the document (every optional group mounted) has no checked 2xx (or 3xx) answer.
 *
 *   bun scripts/openapi-coverage.ts <records file>
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../src/app.ts";
import { silentLogger } from "../src/core/log.ts";
import { loadConfig, openContext } from "../src/open.ts";
import { setupDataDir } from "../src/setup.ts";

export async function operationsOf(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "svc-coverage-"));
  try {
    setupDataDir({ configPath: join(dir, "svc.toml"), dataDir: dir, replica: "off", adminToken: "coverage-admin", metricsToken: "coverage-metrics" });
    const config = loadConfig({ dataDir: dir }, {});
    config.passkeys.rp_id = "example.com";
    config.passkeys.origin = "https://example.com";
    config.assistant.model = "coverage-model";
    const ctx = openContext(config, { log: silentLogger });
    const doc = (await (await buildApp(ctx).handle(new Request("http://svc.test/openapi.json"))).json()) as { paths: Record<string, Record<string, unknown>> };
    ctx.close();
    return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: bun scripts/openapi-coverage.ts <records file>");
    process.exit(2);
  }
  const succeeded = new Set(
    readFileSync(file, "utf8")
      .split("\n")
      // A success: 2xx, or a redirect where that is the answer (GET /v1/oauth/authorize is always a 302).
      .filter((line) => / [23]\d\d$/.test(line))
      .map((line) => line.replace(/ \d+$/, "")),
  );
  const missing = (await operationsOf()).filter((op) => !succeeded.has(op));
  if (missing.length) {
    console.error(`served-vs-declared: ${missing.length} operation(s) no test saw succeed through the harness:\n  ${missing.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`served-vs-declared: every operation's success response was checked against the OpenAPI document (${succeeded.size} operations)`);
}
