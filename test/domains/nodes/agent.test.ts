/**
 * The node agent (in this process, real runner, real HTTP on 127.0.0.1) and the remote backend
 * that drives it: the agent answers only its dispatch secret; errors come back as the same
 * ApiErrors the gateway's runner gives (400, 404, 409, 413); timeouts and aborts; capacity and
 * least-loaded dispatch; a node without bubblewrap is never picked; a node that does not
 * answer is BackendUnavailable.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ApiError } from "../../../src/core/errors.ts";
import { silentLogger } from "../../../src/core/log.ts";
import { startNodeAgent, type RunningAgent } from "../../../src/domains/nodes/agent/serve.ts";
import { RemoteBackend } from "../../../src/domains/nodes/index.ts";
import { BackendUnavailable, nodeBackends, type SandboxBackend } from "../../../src/domains/sandboxes/index.ts";
import { freePort } from "../../support/binary.ts";
import { fleetGateway, type FleetGateway, waitUntil } from "../../support/node-fleet.ts";
import { sandboxTempDir } from "../../support/sandbox-runner.ts";

const agents: RunningAgent[] = [];
afterAll(async () => {
  for (const a of agents) await a.stop(2000);
});

const MiB = 1024 * 1024;
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** An enrolled, approved node agent in this process; resolves after its first heartbeat. */
async function addAgent(fleet: FleetGateway, name: string, options: { capacity?: number; runner?: Record<string, unknown>; approve?: boolean } = {}) {
  const { node_id, node_key } = await fleet.enroll(name);
  if (options.approve !== false) await fleet.approve(node_id);
  const agent = await startNodeAgent({
    gateway: fleet.url,
    nodeKey: node_key,
    hostname: "127.0.0.1",
    port: 0,
    dataDir: join(sandboxTempDir("svc-node-agent"), "data"),
    capacity: options.capacity ?? 2,
    log: silentLogger,
    runner: options.runner,
  });
  agents.push(agent);
  await fleet.waitForHeartbeat(node_id);
  return { nodeId: node_id, nodeKey: node_key, agent };
}

const secretOf = (fleet: FleetGateway, nodeId: string): string => {
  const row = fleet.h.ctx.db.query<{ s: string }, [string]>("SELECT dispatch_secret_sealed AS s FROM nodes WHERE id = ?").get(nodeId)!;
  return fleet.h.ctx.sealer.openText(row.s, `nodes.dispatch_secret:${nodeId}`);
};

const fleet = await fleetGateway();
const main = await addAgent(fleet, "main");
const backend = (): SandboxBackend => nodeBackends(fleet.h.ctx)!.get(main.nodeId)!;

describe("the agent's credential", () => {
  test("answers /healthz to anyone and /v1/node only with the dispatch secret the gateway holds", async () => {
    const url = main.agent.url;
    expect(await (await fetch(`${url}/healthz`)).text()).toBe("ok");
    for (const authorization of [undefined, `Bearer ${main.nodeKey}`, "Bearer nd-svc_wrong", "Basic abc"]) {
      const res = await fetch(`${url}/v1/node/posture`, { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error.type).toBe("invalid_dispatch_secret");
    }
    const ok = await fetch(`${url}/v1/node/posture`, { headers: { authorization: `Bearer ${secretOf(fleet, main.nodeId)}` } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).available).toBe(true);
    // Without the secret nothing says which routes exist.
    expect((await fetch(`${url}/v1/node/nothing-here`)).status).toBe(401);
    expect((await fetch(`${url}/v1/node/nothing-here`, { headers: { authorization: `Bearer ${secretOf(fleet, main.nodeId)}` } })).status).toBe(404);
  });
});

describe("the remote backend", () => {
  test("runs: stdin bytes, args, files; a timeout is a result, not an error", async () => {
    const b = backend();
    const r = await b.run({
      language: "python",
      code: "import sys\nprint(sys.stdin.read().upper(), sys.argv[1:], open('a/b.txt').read())",
      stdin: new TextEncoder().encode("abc"),
      args: ["x", "y"],
      files: { "a/b.txt": "file" },
    });
    expect(r).toMatchObject({ status: "ok", stdout: "ABC ['x', 'y'] file\n" });
    const slow = await b.run({ language: "bash", code: "sleep 5", timeoutMs: 300 });
    expect(slow).toMatchObject({ status: "timeout", timed_out: true });
  });

  test("an aborted run comes back killed with the output seen so far", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const pending = backend().run(
      { language: "bash", code: "echo started; sleep 10; echo never" },
      {
        signal: controller.signal,
        onStdout: (c) => {
          seen.push(text(c));
          controller.abort();
        },
      },
    );
    const r = await pending;
    expect(r).toMatchObject({ status: "killed", killed_reason: "aborted" });
    expect(r.stdout).toBe("started\n");
    expect(seen.join("")).toBe("started\n");
  });

  test("errors come back as the gateway's ApiErrors: 400 spec and path, 404, 409, 413", async () => {
    const b = backend();
    const status = async (p: Promise<unknown>) => {
      const e = await p.then(() => null, (err) => err);
      expect(e).toBeInstanceOf(ApiError);
      expect(e).not.toBeInstanceOf(BackendUnavailable);
      return { status: (e as ApiError).status, type: (e as ApiError).type, param: (e as ApiError).extra.param, limit: (e as ApiError).extra.limit_bytes };
    };
    expect(await status(b.run({ language: "cobol" as never, code: "x" }))).toMatchObject({ status: 400, type: "invalid_request", param: "language" });
    const ws = await b.createWorkspace({ quotaBytes: 12 * MiB });
    expect(await status(b.readFile(ws, "missing.txt"))).toMatchObject({ status: 404, type: "not_found" });
    expect(await status(b.readFile(ws, "../../etc/passwd"))).toMatchObject({ status: 400, type: "invalid_path" });
    expect(await status(b.writeFile(ws, "/abs", new Uint8Array(1)))).toMatchObject({ status: 400, type: "invalid_path" });

    // Exactly 8 MiB is accepted; one byte more is 413, refused before it leaves the gateway and by the node itself.
    await b.writeFile(ws, "big.bin", new Uint8Array(8 * MiB).fill(1));
    expect((await b.readFile(ws, "big.bin")).byteLength).toBe(8 * MiB);
    expect(await status(b.writeFile(ws, "big2.bin", new Uint8Array(8 * MiB + 1)))).toMatchObject({ status: 413, type: "payload_too_large", limit: 8 * MiB });
    const direct = await fetch(`${main.agent.url}/v1/node/workspaces/${ws.id}/file?path=big3.bin`, {
      method: "PUT",
      headers: { authorization: `Bearer ${secretOf(fleet, main.nodeId)}` },
      body: new Uint8Array(8 * MiB + 1),
    });
    expect(direct.status).toBe(413);
    // The workspace's quota holds on the node too.
    expect(await status(b.writeFile(ws, "big4.bin", new Uint8Array(8 * MiB).fill(2)))).toMatchObject({ status: 413, type: "workspace_quota_exceeded" });

    expect(await status(b.exec({ id: "ws-nothere" }, { command: ["true"] }))).toMatchObject({ status: 404 });
    expect(await status(b.listFiles({ id: "../../etc" }))).toMatchObject({ status: 404 });
    expect(await status(b.createWorkspace({ fromSnapshot: "snap_unknown" }))).toMatchObject({ status: 404 });
    await b.snapshot(ws, "snap_twice");
    expect(await status(b.snapshot(ws, "snap_twice"))).toMatchObject({ status: 409, type: "snapshot_exists" });
    await b.deleteSnapshot("snap_twice");
    await b.deleteSnapshot("snap_twice"); // idempotent
    expect(await status(b.createWorkspace({ fromSnapshot: "snap_twice" }))).toMatchObject({ status: 404 });
    await b.removeWorkspace(ws);
    await b.removeWorkspace(ws); // idempotent
    expect(await status(b.listFiles(ws))).toMatchObject({ status: 404 });
  });

  test("exec streams output and keeps files between execs; listings and posture", async () => {
    const b = backend();
    const ws = await b.createWorkspace();
    const out: string[] = [];
    const err: string[] = [];
    const r = await b.exec(ws, { language: "bash", code: "echo one; echo two >&2; echo kept > k.txt" }, { onStdout: (c) => out.push(text(c)), onStderr: (c) => err.push(text(c)) });
    expect(r.status).toBe("ok");
    expect(out.join("")).toBe("one\n");
    expect(err.join("")).toBe("two\n");
    expect((await b.exec(ws, { command: ["cat", "k.txt"] })).stdout).toBe("kept\n");
    expect(await b.listFiles(ws)).toEqual([{ name: "k.txt", type: "file", size: 5 }]);
    const posture = await b.posture();
    expect(posture.languages.map((l) => l.name)).toContain("python");
    await b.removeWorkspace(ws);
  });
});

describe("dispatch", () => {
  test("least loaded first, never past capacity; counted back when runs end", async () => {
    const f = await fleetGateway();
    const a = await addAgent(f, "a", { capacity: 1 });
    const b = await addAgent(f, "b", { capacity: 1 });
    const seam = nodeBackends(f.h.ctx)!;
    const first = seam.pick({ language: "bash" })!;
    const run1 = first.run({ language: "bash", code: "sleep 1" });
    const second = seam.pick({ language: "bash" })!;
    expect(second.nodeId).not.toBe(first.nodeId);
    expect([first.nodeId, second.nodeId].sort()).toEqual([a.nodeId, b.nodeId].sort());
    const run2 = second.run({ language: "bash", code: "sleep 1" });
    expect(seam.pick({ language: "bash" })).toBeNull(); // both full
    const busy = (await f.h.json("GET", "/v1/nodes")).body as any[];
    expect(busy.slice(1).map((n) => n.in_flight)).toEqual([1, 1]);
    expect((await run1).status).toBe("ok");
    expect((await run2).status).toBe("ok");
    expect(seam.pick({ language: "bash" })).not.toBeNull();
    const registry = (await f.h.json("GET", "/v1/nodes")).body as any[];
    for (const n of registry.slice(1)) {
      expect(n).toMatchObject({ in_flight: 0, reliability: 1, calls: { succeeded: 1, failed: 0 } });
      expect(n.latency_ms).toBeGreaterThanOrEqual(0);
      expect(n.speed_factor).toBeGreaterThan(0);
    }
    await f.stop();
  }, 30_000);

  test("a node without bubblewrap heartbeats, says why, and is never picked", async () => {
    const f = await fleetGateway();
    const n = await addAgent(f, "no-bwrap", { runner: { bwrapPath: "/nonexistent/bwrap" } });
    const entry = ((await f.h.json("GET", "/v1/nodes")).body as any[])[1];
    expect(entry).toMatchObject({ id: n.nodeId, status: "live", sandbox_available: false, languages: [] });
    expect(nodeBackends(f.h.ctx)!.pick({})).toBeNull();
    expect(f.h.ctx.db.query<{ r: string }, []>("SELECT sandbox_reason AS r FROM nodes").get()!.r).toContain("bubblewrap");
    await f.stop();
  });

  test("a node that does not answer in time, or at all, is BackendUnavailable and counted failed", async () => {
    const f = await fleetGateway({ config: (c) => (c.nodes.request_timeout_secs = 1) });
    // A listener that accepts and never answers.
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const closedPort = await freePort();
    const { node_id, node_key } = await f.enroll("silent");
    await f.approve(node_id);
    const beat = (endpoint: string) =>
      f.h.json("POST", "/v1/nodes/heartbeat", {
        headers: { authorization: `Bearer ${node_key}` },
        body: { endpoint, version: "1", dispatch_secret: "nd-svc_" + "q".repeat(43), languages: ["bash"], capacity: 1 },
      });
    await beat(`http://127.0.0.1:${silent.port}`);
    const hung = await nodeBackends(f.h.ctx)!.get(node_id)!.listFiles({ id: "ws-x" }).catch((e) => e);
    expect(hung).toBeInstanceOf(BackendUnavailable);
    expect(hung.message).toContain("no answer within 1 s");
    await beat(`http://127.0.0.1:${closedPort}`);
    const refused = await nodeBackends(f.h.ctx)!.get(node_id)!.run({ language: "bash", code: "true" }).catch((e) => e);
    expect(refused).toBeInstanceOf(BackendUnavailable);
    expect(refused).toMatchObject({ status: 503, type: "sandbox_unavailable" });
    const entry = ((await f.h.json("GET", "/v1/nodes")).body as any[])[1];
    expect(entry).toMatchObject({ calls: { succeeded: 0, failed: 2 }, reliability: 0, in_flight: 0 });
    silent.stop(true);
    await f.stop();
  });

  test("a node that restarted refuses the old secret until its heartbeat brings the new one", async () => {
    const b = backend() as RemoteBackend;
    const stale = new RemoteBackend({
      nodeId: main.nodeId,
      endpoint: main.agent.url,
      secret: "nd-svc_" + "o".repeat(43),
      posture: null,
      timeouts: { requestMs: 5000, runGraceMs: 5000, snapshotMs: 5000 },
      begin() {},
      end() {},
      outcome() {},
    });
    const e = await stale.posture().catch((err) => err);
    expect(e).toBeInstanceOf(BackendUnavailable);
    expect(e.message).toContain("refused the gateway's dispatch credential");
    expect((await b.posture()).available).toBe(true);
  });
});

test("an agent whose key the gateway refuses stops (exit 1); a stopped agent answers nothing", async () => {
  const f = await fleetGateway();
  const refused = await startNodeAgent({
    gateway: f.url,
    nodeKey: "nk-svc_" + "Z".repeat(43),
    hostname: "127.0.0.1",
    port: 0,
    dataDir: join(sandboxTempDir("svc-node-agent"), "data"),
    log: silentLogger,
  });
  expect(await refused.done).toBe(1);
  expect(await fetch(`${refused.url}/healthz`).then(() => "answered", () => "gone")).toBe("gone");
  expect(f.h.ctx.db.query("SELECT count(*) AS n FROM nodes").get()).toEqual({ n: 0 });
  await f.stop();
});
