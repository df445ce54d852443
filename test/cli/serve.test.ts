/** `svc serve` as a real process: no Bun needed, env overrides, graceful stop, restart behaviour. */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { buildApp } from "../../src/app.ts";
import { startServer } from "../../src/server.ts";
import { emptyPath, freePort, runSvc, serveSvc, svcBinary } from "../support/binary.ts";
import { makeHarness, tempDir } from "../support/harness.ts";

beforeAll(async () => {
  await svcBinary();
}, 120_000);

async function setUp(): Promise<string> {
  const dir = join(tempDir(), "data");
  expect((await runSvc(["setup", "--yes", "--data-dir", dir])).code).toBe(0);
  return dir;
}

describe("svc serve (compiled binary)", () => {
  test("runs with nothing on PATH and no node_modules, serves, and stops cleanly on SIGTERM", async () => {
    const dir = await setUp();
    // Nothing on PATH: litestream (replication is on by default) is named by absolute path.
    const served = await serveSvc(dir, { env: { PATH: emptyPath(), SVC_LITESTREAM: Bun.which("litestream") ?? "/usr/local/bin/litestream" } });
    try {
      const banner = (await (await fetch(`${served.url}/`)).json()) as { name: string; signer: string };
      expect(banner.name).toBe("svc");
      expect(await (await fetch(`${served.url}/healthz`)).text()).toBe("ok");
      const status = (await (await fetch(`${served.url}/v1/status`)).json()) as { status: string };
      expect(status.status).toBe("ok"); // the first health sample is taken at start
      expect((await fetch(`${served.url}/v1/admin/metrics`)).status).toBe(404); // no admin token configured
    } finally {
      expect(await served.stop()).toBe(0);
    }
    expect(served.log()).toContain('"msg":"svc stopped"');
    expect(existsSync(join(dir, "svc.db-wal"))).toBe(false); // checkpointed and closed
  }, 60_000);

  test("SVC_* environment variables override svc.toml", async () => {
    const dir = await setUp();
    const served = await serveSvc(dir, { env: { SVC_ADMIN_TOKEN: "env-admin", SVC_METRICS_TOKEN: "env-metrics", SVC_PUBLIC_URL: "https://gw.example.com" } });
    try {
      expect((await fetch(`${served.url}/v1/admin/metrics`, { headers: { authorization: "Bearer env-admin" } })).status).toBe(200);
      expect((await fetch(`${served.url}/v1/admin/metrics`, { headers: { authorization: "Bearer nope" } })).status).toBe(401);
      expect((await fetch(`${served.url}/metrics`, { headers: { authorization: "Bearer env-metrics" } })).status).toBe(200);
      const doc = (await (await fetch(`${served.url}/openapi.json`)).json()) as { servers: { url: string }[] };
      expect(doc.servers).toEqual([{ url: "https://gw.example.com" }]);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  }, 60_000);

  test("a job that fell due while svc was down runs right after the next start", async () => {
    const dir = await setUp();
    const port = await freePort();
    let served = await serveSvc(dir, { port });
    expect(await served.stop()).toBe(0);
    const db = new Database(join(dir, "svc.db"));
    const samples = () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM health_samples").get()!.n;
    expect(samples()).toBe(1);
    // While down, the next health sample (due in a minute) falls due.
    db.query("UPDATE jobs SET run_at = ? WHERE kind = 'health.sample'").run(Date.now() - 1000);
    served = await serveSvc(dir, { port });
    for (let i = 0; i < 100 && samples() < 2; i++) await Bun.sleep(20);
    expect(samples()).toBe(2);
    expect(await served.stop()).toBe(0);
    db.close();
  }, 60_000);

  test("a second server on the same port fails with a clear error, exit 1", async () => {
    const dir = await setUp();
    const served = await serveSvc(dir);
    try {
      const port = new URL(served.url).port;
      const r = await runSvc(["serve", "--data-dir", dir, "--listen", `127.0.0.1:${port}`]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/in use|EADDRINUSE|Failed to start server/i);
    } finally {
      await served.stop();
    }
  }, 60_000);
});

describe("graceful stop (in process)", () => {
  test("in-flight requests finish; new connections are refused; jobs and db are released", async () => {
    const h = makeHarness({ config: (c) => (c.listen = "127.0.0.1:0") });
    const app = buildApp(h.ctx).get("/slow", async () => {
      await Bun.sleep(300);
      return "finished";
    });
    const running = await startServer(h.ctx, { app });
    const inflight = fetch(`${running.url}/slow`).then((r) => r.text());
    await Bun.sleep(50);
    const stopped = running.stop();
    expect(await inflight).toBe("finished");
    await stopped;
    expect(await fetch(`${running.url}/healthz`).then(() => "answered", () => "refused")).toBe("refused");
    expect(() => h.ctx.db.query("SELECT 1").get()).toThrow(); // closed
  }, 30_000);
});
