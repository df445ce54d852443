/**
 * Two real processes: a gateway served on 127.0.0.1 and a node started as `svc node serve` (its
 * own process, the same code as the binary). Enrolled, approved, heartbeating; then driven
 * through the sandboxes seam exactly as the sandbox service drives it (nodeBackends(ctx).pick →
 * one-shot, workspace, files, exec, snapshot); then killed -9: the gateway's calls fail with
 * BackendUnavailable, and once the clock passes two heartbeats the sweep marks it unreachable
 * and reports it lost.
 */
import { expect, test } from "bun:test";
import { BackendUnavailable, nodeBackends } from "../../../src/domains/sandboxes/index.ts";
import { fleetGateway } from "../../support/node-fleet.ts";
import { startNodeProcess } from "../../support/node-process.ts";

test("a node process enrolls, heartbeats, runs sandboxes for the gateway, and is reported lost after kill -9", async () => {
  const fleet = await fleetGateway();
  const { h } = fleet;
  const { node_id, node_key } = await fleet.enroll("edge-1");
  const node = await startNodeProcess({ gateway: fleet.url, nodeKey: node_key, capacity: 2 });
  await fleet.waitForHeartbeat(node_id);

  // Heartbeating but not approved: never picked.
  const seam = nodeBackends(h.ctx)!;
  expect(seam.pick({ language: "python" })).toBeNull();
  let registry = (await h.json("GET", "/v1/nodes")).body as any[];
  expect(registry[1]).toMatchObject({ id: node_id, status: "pending", approved: false, capacity: 2, sandbox_available: true });
  expect(registry[1].languages).toContain("python");

  await fleet.approve(node_id);
  registry = (await h.json("GET", "/v1/nodes")).body as any[];
  expect(registry[1].status).toBe("live");
  const backend = seam.pick({ language: "python" });
  expect(backend?.nodeId).toBe(node_id);

  // A one-shot with streamed output.
  const chunks: string[] = [];
  const run = await backend!.run({ language: "python", code: "import sys\nprint('hello from', 'node')\nprint('warn', file=sys.stderr)" }, { onStdout: (c) => chunks.push(new TextDecoder().decode(c)) });
  expect(run).toMatchObject({ status: "ok", exit_code: 0, stdout: "hello from node\n", stderr: "warn\n" });
  expect(chunks.join("")).toBe("hello from node\n");

  // A session's workspace: write, read, exec, list, snapshot, restore from it.
  const ws = await backend!.createWorkspace();
  await backend!.writeFile(ws, "data/in.txt", new TextEncoder().encode("41"));
  expect(new TextDecoder().decode(await backend!.readFile(ws, "data/in.txt"))).toBe("41");
  const exec = await backend!.exec(ws, { command: ["sh", "-c", "echo $(( $(cat data/in.txt) + 1 )) > out.txt && cat out.txt"] });
  expect(exec).toMatchObject({ status: "ok", stdout: "42\n" });
  expect((await backend!.listFiles(ws)).map((e) => e.name).sort()).toEqual(["data", "out.txt"]);
  const snap = await backend!.snapshot(ws, "snap_fleet1");
  expect(snap.bytes).toBeGreaterThan(0);
  const copy = await backend!.createWorkspace({ fromSnapshot: "snap_fleet1" });
  expect(new TextDecoder().decode(await backend!.readFile(copy, "out.txt"))).toBe("42\n");
  expect((await backend!.posture()).available).toBe(true);

  // The seam's get() reaches the same node; reliability and latency are on the registry.
  const again = seam.get(node_id)!;
  expect(new TextDecoder().decode(await again.readFile(ws, "out.txt"))).toBe("42\n");
  registry = (await h.json("GET", "/v1/nodes")).body as any[];
  expect(registry[1].calls.failed).toBe(0);
  expect(registry[1].calls.succeeded).toBeGreaterThanOrEqual(10);
  expect(registry[1].reliability).toBe(1);
  expect(registry[1].latency_ms).toBeGreaterThanOrEqual(0);

  // kill -9: calls fail as BackendUnavailable (503 sandbox_unavailable) and count as failures.
  await node.kill9();
  const refused = await again.readFile(ws, "out.txt").catch((e) => e);
  expect(refused).toBeInstanceOf(BackendUnavailable);
  expect(refused).toMatchObject({ status: 503, type: "sandbox_unavailable" });
  expect(fleet.lost).toEqual([]);

  // Two missed heartbeats later the sweep marks it unreachable and reports it lost, once.
  await fleet.expire();
  expect(fleet.lost).toEqual([node_id]);
  registry = (await h.json("GET", "/v1/nodes")).body as any[];
  expect(registry[1]).toMatchObject({ id: node_id, status: "unreachable", reachable: false });
  expect(registry[1].calls.failed).toBe(1);
  expect(seam.get(node_id)).toBeNull();
  expect(seam.pick({ language: "python" })).toBeNull();
  await fleet.expire();
  expect(fleet.lost).toEqual([node_id]);

  // The same node started again (same key and data dir) heartbeats back to live, its workspace intact.
  const back = await startNodeProcess({ gateway: fleet.url, nodeKey: node_key, capacity: 2, dataDir: node.dataDir });
  await fleet.waitForHeartbeat(node_id, { after: h.clock.now() - 1 });
  registry = (await h.json("GET", "/v1/nodes")).body as any[];
  expect(registry[1].status).toBe("live");
  const revived = seam.get(node_id)!;
  expect(new TextDecoder().decode(await revived.readFile(ws, "out.txt"))).toBe("42\n");
  expect(await back.stop()).toBe(0);
  await fleet.stop();
}, 90_000);
