/**
 * Where runs go, through HTTP: with sandboxes.local = false every run and session goes to a
 * fleet node (here: the seam the nodes area plugs into, backed by real runners); nothing to
 * run on is 503 no_sandbox_node; a session and its snapshots stay on their node; a node lost
 * stops its sessions with node_unreachable (and their events); a sandbox that fails (runner
 * error, node gone mid-run) bills nothing and fires sandbox_failed. Also the posture block.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { BackendUnavailable, reportNodeLost, sandboxPosture, type SandboxBackend } from "../../../src/domains/sandboxes/index.ts";
import { type FakeFleet, fakeFleet, receiptPayload, type SandboxHarness, sandboxHarness, tenant } from "../../support/sandbox-harness.ts";

let h: SandboxHarness;
let fleet: FakeFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
  await h?.close();
});

const remoteOnly = () => sandboxHarness({ config: (c) => (c.sandboxes.local = false) });
const events = (type: string) => h.ctx.outbox.since(0).filter((e) => e.type === type).map((e) => e.payload);

describe("dispatch", () => {
  test("sandboxes.local = false and no fleet: runs and sessions are 503 no_sandbox_node; the posture says so", async () => {
    h = remoteOnly();
    const t = tenant(h.ctx);
    const r = await h.json("POST", "/v1/sandboxes", { headers: t.key, body: { language: "python", code: "print(1)" } });
    expect([r.status, r.body.error.type]).toEqual([503, "no_sandbox_node"]);
    expect(r.body.error.message).toContain("sandboxes.local is false");
    const s = await h.json("POST", "/v1/sandboxes/sessions", { headers: t.key, body: {} });
    expect([s.status, s.body.error.type]).toEqual([503, "no_sandbox_node"]);
    expect(h.ctx.ledger.balance(t.accountId).held_micro_usd).toBe(0);
    expect(sandboxPosture(h.ctx)).toEqual({ local: false, runner: null, fleet: false });
  });

  test("the gateway's posture: null until its runner starts, then bwrap, languages and verified limits", async () => {
    h = sandboxHarness();
    expect(sandboxPosture(h.ctx).runner).toBeNull();
    const t = tenant(h.ctx);
    await h.json("POST", "/v1/sandboxes", { headers: t.key, body: { language: "bash", code: "true" } });
    const p = sandboxPosture(h.ctx);
    expect(p.local).toBe(true);
    expect(p.runner).toMatchObject({ available: true, isolation: { network: "none" }, rlimits: { verified: true } });
    expect(p.runner!.languages.map((l) => [l.name, l.available])).toEqual([["python", true], ["javascript", true], ["bash", true]]);
  });

  test("with a fleet, one-shots, sessions, files and snapshots run on the node, and a session from a snapshot goes back to it", async () => {
    h = remoteOnly();
    fleet = await fakeFleet(h.ctx, ["node_a"]);
    const t = tenant(h.ctx);
    const r = await h.json("POST", "/v1/sandboxes", { headers: t.key, body: { language: "python", code: "print(1)" } });
    expect(r.body).toMatchObject({ status: "ok", stdout: "1\n", node_id: "node_a" });
    expect(receiptPayload(r.body.receipt.receipt).units.node_id).toBe("node_a");
    expect(sandboxPosture(h.ctx)).toMatchObject({ local: false, runner: null, fleet: true });

    const s = (await h.json("POST", "/v1/sandboxes/sessions", { headers: t.key, body: { language: "bash" } })).body;
    expect(s.node_id).toBe("node_a");
    await h.json("POST", `/v1/sandboxes/sessions/${s.id}/exec`, { headers: t.key, body: { code: "echo on-node > f.txt" } });
    const snap = (await h.json("POST", `/v1/sandboxes/sessions/${s.id}/snapshot`, { headers: t.key })).body;
    expect(snap.node_id).toBe("node_a");
    const again = (await h.json("POST", "/v1/sandboxes/sessions", { headers: t.key, body: { snapshot_id: snap.id } })).body;
    expect(again.node_id).toBe("node_a");
    expect((await h.json("POST", `/v1/sandboxes/sessions/${again.id}/exec`, { headers: t.key, body: { command: "cat f.txt" } })).body.stdout).toBe("on-node\n");
  });

  test("a node lost stops its live sessions with node_unreachable and their events; later commands are 409", async () => {
    h = remoteOnly();
    fleet = await fakeFleet(h.ctx, ["node_a"]);
    const t = tenant(h.ctx);
    const ids = [];
    for (let i = 0; i < 2; i++) ids.push((await h.json("POST", "/v1/sandboxes/sessions", { headers: t.key, body: {} })).body.id);
    await h.json("DELETE", `/v1/sandboxes/sessions/${ids[1]}`, { headers: t.key });
    fleet.down.add("node_a");
    reportNodeLost(h.ctx, "node_a");
    const v = (await h.json("GET", `/v1/sandboxes/sessions/${ids[0]}`, { headers: t.key })).body;
    expect(v).toMatchObject({ status: "stopped", stop_reason: "node_unreachable" });
    expect(events("sandbox_session_stopped")).toEqual([
      { session_id: ids[1], reason: "requested" },
      { session_id: ids[0], reason: "node_unreachable" },
    ]);
    expect((await h.json("POST", `/v1/sandboxes/sessions/${ids[0]}/exec`, { headers: t.key, body: { command: "true" } })).status).toBe(409);
    expect(h.ctx.ledger.balance(t.accountId).held_micro_usd).toBe(0);
  });

  test("a node that stops answering before it is reported: the session's next command is 503 and stops it with node_unreachable", async () => {
    h = remoteOnly();
    fleet = await fakeFleet(h.ctx, ["node_a"]);
    const t = tenant(h.ctx);
    const s = (await h.json("POST", "/v1/sandboxes/sessions", { headers: t.key, body: {} })).body;
    fleet.down.add("node_a");
    const r = await h.json("POST", `/v1/sandboxes/sessions/${s.id}/exec`, { headers: t.key, body: { command: "true" } });
    expect([r.status, r.body.error.type, r.body.error.node_id]).toEqual([503, "sandbox_unavailable", "node_a"]);
    expect((await h.json("GET", `/v1/sandboxes/sessions/${s.id}`, { headers: t.key })).body.stop_reason).toBe("node_unreachable");
    // A snapshot there can still be forgotten (its archive stays on the lost node).
    expect(events("sandbox_session_stopped")).toEqual([{ session_id: s.id, reason: "node_unreachable" }]);
  });

  test("a sandbox that fails (runner error, or its node lost mid-run) is 503, bills nothing and fires sandbox_failed", async () => {
    h = remoteOnly();
    let mode: "runner_error" | "lost" = "runner_error";
    fleet = await fakeFleet(h.ctx, ["node_a"], (b): SandboxBackend => ({
      ...b,
      nodeId: b.nodeId,
      run: async (spec, io) => {
        if (mode === "lost") throw new BackendUnavailable("node_a", "connection reset");
        const real = await b.run(spec, io);
        return { ...real, status: "runner_error", exit_code: null, error: "the sandbox did not start: bwrap: setting up uid map: Permission denied" };
      },
    }));
    const t = tenant(h.ctx);
    const before = h.ctx.ledger.balance(t.accountId);
    const r = await h.json("POST", "/v1/sandboxes", { headers: t.key, body: { language: "python", code: "print(1)" } });
    expect([r.status, r.body.error.type]).toEqual([503, "sandbox_failed"]);
    expect(r.body.error.message).toContain("nothing was billed");
    mode = "lost";
    const lost = await h.json("POST", "/v1/sandboxes", { headers: t.key, body: { language: "bash", code: "true" } });
    expect([lost.status, lost.body.error.type]).toEqual([503, "sandbox_unavailable"]);
    const failed = events("sandbox_failed");
    expect(failed.map((e) => [e.reason, e.node_id, e.language])).toEqual([
      ["runner_error", "node_a", "python"],
      ["node_unreachable", "node_a", "bash"],
    ]);
    expect(JSON.stringify(failed)).not.toContain("print(1)");
    expect(h.ctx.ledger.balance(t.accountId)).toEqual(before);
    expect(events("receipt_minted")).toEqual([]);
    // Streamed: the failure is the stream's error event, and still nothing is billed.
    mode = "runner_error";
    const res = await h.request("POST", "/v1/sandboxes", { headers: t.key, body: { language: "python", code: "print(1)", stream: true } });
    const text = await res.text();
    expect(text).toContain("event: error");
    expect(text).toContain("sandbox_failed");
    expect(h.ctx.ledger.balance(t.accountId)).toEqual(before);
  });
});
