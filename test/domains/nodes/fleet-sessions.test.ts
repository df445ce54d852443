/**
 * The fleet end to end, two real processes: a gateway with sandboxes.local = false (it runs
 * nothing itself) served on 127.0.0.1, and a node started as `svc node serve`, enrolled and
 * approved. A session created through POST /v1/sandboxes/sessions lands on the node, execs and
 * files go there; then the node is killed -9: once it has missed its heartbeats the session
 * stops with node_unreachable, and the sandbox_session_stopped event reaches a subscribed
 * webhook receiver, signed.
 */
import { expect, test } from "bun:test";
import { closeSandboxes } from "../../../src/domains/sandboxes/index.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer } from "../../support/harness.ts";
import { fleetGateway, waitUntil } from "../../support/node-fleet.ts";
import { startNodeProcess } from "../../support/node-process.ts";
import { startReceiver } from "../../support/receiver.ts";

test("a session runs on a fleet node; kill -9 of the node stops it with node_unreachable and the event is delivered", async () => {
  const rx = await startReceiver();
  const fleet = await fleetGateway({
    config: (c) => {
      c.sandboxes.local = false;
      c.webhooks.allow_private = true;
    },
  });
  const { h } = fleet;
  try {
    const { account, session } = accountWithSession(h.ctx);
    h.ctx.ledger.credit(account.id, 10_000_000, { type: "deposit" });
    const key = bearer(apiKeyFor(h.ctx, account.id, { scopes: ["sandboxes"] }).token);
    const hook = await h.json("POST", "/v1/webhooks", { headers: bearer(session.token), body: { url: rx.url("/hook"), events: ["sandbox_session_stopped"] } });
    expect(hook.status).toBe(201);
    rx.setSecret("/hook", hook.body.secret);

    // No node yet: nothing can run a session.
    expect((await h.json("POST", "/v1/sandboxes/sessions", { headers: key, body: { language: "python" } })).body.error.type).toBe("no_sandbox_node");

    const { node_id, node_key } = await fleet.enroll("edge-1");
    const node = await startNodeProcess({ gateway: fleet.url, nodeKey: node_key, capacity: 2 });
    await fleet.waitForHeartbeat(node_id);
    await fleet.approve(node_id);

    const created = await h.json("POST", "/v1/sandboxes/sessions", { headers: key, body: { language: "python" } });
    expect(created.status).toBe(201);
    expect(created.body.node_id).toBe(node_id);
    const id = created.body.id as string;
    const put = await h.request("PUT", `/v1/sandboxes/sessions/${id}/files/data/n.txt`, { headers: { ...key, "content-type": "application/octet-stream" }, raw: "41" });
    expect(put.status).toBe(200);
    const exec = await h.json("POST", `/v1/sandboxes/sessions/${id}/exec`, { headers: key, body: { code: "print(int(open('data/n.txt').read()) + 1)" } });
    expect(exec.status).toBe(200);
    expect(exec.body).toMatchObject({ status: "ok", exit_code: 0, stdout: "42\n", node_id });
    expect(exec.body.receipt.id).toMatch(/^rcpt_/);

    // The node dies without a word.
    await node.kill9();
    await fleet.expire();
    expect(fleet.lost).toEqual([node_id]);
    const after = await h.json("GET", `/v1/sandboxes/sessions/${id}`, { headers: key });
    expect(after.body).toMatchObject({ status: "stopped", stop_reason: "node_unreachable" });
    expect((await h.json("POST", `/v1/sandboxes/sessions/${id}/exec`, { headers: key, body: { code: "print(1)" } })).status).toBe(409);
    const registry = (await h.json("GET", "/v1/nodes")).body as { id: string; status: string }[];
    expect(registry.find((n) => n.id === node_id)?.status).toBe("unreachable");

    // The event, delivered by the webhook jobs (the scheduler runs in the served gateway).
    await waitUntil(async () => {
      await h.ctx.scheduler.runDue();
      return rx.accepted().some((r) => r.json?.type === "sandbox_session_stopped");
    }, "the sandbox_session_stopped delivery");
    const delivered = rx.accepted().find((r) => r.json?.type === "sandbox_session_stopped")!;
    expect(delivered.signatureValid).toBe(true);
    expect(delivered.json.data).toMatchObject({ session_id: id, reason: "node_unreachable" });
  } finally {
    await closeSandboxes(h.ctx);
    await fleet.stop();
    await rx.close();
  }
});
