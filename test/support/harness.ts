/**
 * A fresh, isolated svc for one test: its own temp data dir (set up like `svc setup` does),
 * a manual clock, a silent logger, and tiny request helpers over app.handle().
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnyElysia } from "elysia";
import { buildApp } from "../../src/app.ts";
import { type Config } from "../../src/config.ts";
import { loadConfig } from "../../src/open.ts";
import { type Context, openContext } from "../../src/open.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger, type Logger } from "../../src/core/log.ts";
import { buildOpenApiDocument } from "../../src/core/openapi.ts";
import { setupDataDir } from "../../src/setup.ts";
import { onCleanup } from "./cleanup.ts";
import { checkServed } from "./openapi-check.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const METRICS_TOKEN = "test-metrics-token-0123456789";

type Body = NonNullable<RequestInit["body"]>;

export interface HarnessOptions {
  admin?: boolean;
  metrics?: boolean;
  /** Changes applied to the loaded config before the context opens. */
  config?: (c: Config) => void;
  log?: Logger;
  dir?: string;
  /** A clock to continue (a restart in a test keeps its time); a fresh one otherwise. */
  clock?: ManualClock;
  /** backup.replica for this data dir; replication is off unless a test asks for it. */
  replica?: string;
  /**
   * Check every response against the app's OpenAPI document (status declared, JSON body
   * matching its schema; test/support/openapi-check.ts). On unless a test turns it off.
   */
  checkResponses?: boolean;
}

export interface Harness {
  dir: string;
  ctx: Context;
  app: AnyElysia;
  clock: ManualClock;
  request(method: string, path: string, init?: { body?: unknown; raw?: Body; headers?: Record<string, string> }): Promise<Response>;
  json<T = any>(method: string, path: string, init?: { body?: unknown; raw?: Body; headers?: Record<string, string> }): Promise<{ status: number; body: T; headers: Headers }>;
  close(): void;
}

/** A temp dir, removed after the test file's tests. */
export function tempDir(label = "svc-test"): string {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function makeHarness(options: HarnessOptions = {}): Harness {
  const dir = options.dir ?? tempDir();
  setupDataDir({
    configPath: join(dir, "svc.toml"),
    dataDir: dir,
    adminToken: options.admin ? ADMIN_TOKEN : undefined,
    metricsToken: options.metrics ? METRICS_TOKEN : undefined,
    replica: options.replica ?? "off",
  });
  const config = loadConfig({ dataDir: dir }, {});
  options.config?.(config);
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));
  const ctx = openContext(config, { clock, log: options.log ?? silentLogger });
  const app = buildApp(ctx);
  let docText: string | undefined;
  const check = async (method: string, path: string, res: Response): Promise<void> => {
    // Built here rather than fetched, so the check leaves no trace in the app's request statistics.
    docText ??= JSON.stringify(buildOpenApiDocument(app, { title: "svc", version: ctx.version, description: "", serverUrl: "http://svc.test" }));
    const type = res.headers.get("content-type");
    // A stream's body may never end; its status and type are still checked.
    const text = type?.startsWith("text/event-stream") ? "" : await res.clone().text();
    checkServed(docText, method, new URL(path, "http://svc.test").pathname, res.status, type, text);
  };
  const request: Harness["request"] = async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: Body | undefined = init.raw;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await app.handle(new Request(`http://svc.test${path}`, { method, headers, body }));
    if (options.checkResponses !== false) await check(method, path, res);
    return res;
  };
  return {
    dir,
    ctx,
    app,
    clock,
    request,
    async json(method, path, init) {
      const res = await request(method, path, init);
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: leave the text
      }
      return { status: res.status, body: body as any, headers: res.headers };
    },
    close() {
      ctx.close();
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
