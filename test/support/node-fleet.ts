/**
 * A gateway for fleet tests, served on 127.0.0.1 (src/server.ts startServer: HTTP, scheduler and
 * every area's jobs, as `svc serve` runs them) over a harness (manual clock, admin token, every
 * response checked against the OpenAPI document when it goes through h.json), plus the operator's
 * steps: enrol and approve nodes, wait for their heartbeats, move the clock past their deadline.
 *
 * The post-merge fleet test (sessions through /v1/sandboxes/sessions with sandboxes.local off)
 * builds on this: fleetGateway({ config: (c) => (c.sandboxes.local = false) }), addNode() with
 * startNodeProcess (test/support/node-process.ts), then drive the routes with h.json.
 */
import { join } from "node:path";
import type { Config } from "../../src/config.ts";
import { onNodeLost } from "../../src/domains/sandboxes/index.ts";
import { type RunningServer, startServer } from "../../src/server.ts";
import { onCleanup } from "./cleanup.ts";
import { ADMIN_TOKEN, bearer, type Harness, type HarnessOptions, makeHarness } from "./harness.ts";

export interface FleetGateway {
  h: Harness;
  /** The gateway's base URL, for `svc node serve --gateway`. */
  url: string;
  server: RunningServer;
  /** Node ids reported lost through the sandboxes seam, in order. */
  lost: string[];
  enroll(name?: string, body?: Record<string, unknown>): Promise<{ node_id: string; node_key: string }>;
  approve(nodeId: string, approved?: boolean): Promise<void>;
  /** Waits (bounded, real time) for a heartbeat from the node recorded after `after` (gateway clock, ms). */
  waitForHeartbeat(nodeId: string, options?: { after?: number; timeoutMs?: number }): Promise<void>;
  /** Moves the manual clock past the node's deadline (missed heartbeats) and runs the due jobs (the sweep). */
  expire(): Promise<void>;
  stop(): Promise<void>;
}

/** Polls `check` until it returns true (bounded). */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

export async function fleetGateway(options: Omit<HarnessOptions, "admin"> & { config?: (c: Config) => void } = {}): Promise<FleetGateway> {
  const h = makeHarness({
    ...options,
    admin: true,
    config: (c) => {
      c.listen = "127.0.0.1:0";
      options.config?.(c);
    },
  });
  const server = await startServer(h.ctx, { app: h.app });
  h.ctx.config.public_url = server.url;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
  };
  onCleanup(() => void stop());
  const lost: string[] = [];
  onNodeLost(h.ctx, (nodeId) => lost.push(nodeId));
  const heartbeatAt = (nodeId: string): number | null =>
    h.ctx.db.query<{ t: number | null }, [string]>("SELECT last_heartbeat_at AS t FROM nodes WHERE id = ?").get(nodeId)?.t ?? null;
  return {
    h,
    url: server.url,
    server,
    lost,
    async enroll(name = "node", body = {}) {
      const r = await h.json("POST", "/v1/admin/nodes/enroll", { body: { name, ...body }, headers: bearer(ADMIN_TOKEN) });
      if (r.status !== 201) throw new Error(`enroll answered ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body as { node_id: string; node_key: string };
    },
    async approve(nodeId, approved = true) {
      const r = await h.json("POST", "/v1/admin/nodes/approve", { body: { node_id: nodeId, approved }, headers: bearer(ADMIN_TOKEN) });
      if (r.status !== 200) throw new Error(`approve answered ${r.status}: ${JSON.stringify(r.body)}`);
    },
    async waitForHeartbeat(nodeId, { after = Number.NEGATIVE_INFINITY, timeoutMs = 30_000 } = {}) {
      await waitUntil(() => (heartbeatAt(nodeId) ?? Number.NEGATIVE_INFINITY) > after, `a heartbeat from ${nodeId}`, timeoutMs);
    },
    async expire() {
      const { heartbeat_secs, missed_heartbeats } = h.ctx.config.nodes;
      h.clock.advance(heartbeat_secs * missed_heartbeats * 1000 + 1000);
      await h.ctx.scheduler.runDue();
    },
    stop,
  };
}

/** Where node processes keep their workspaces: a dir the sandbox uid can pass through (0711). */
export const nodeDataDir = (root: string, name: string): string => join(root, name);
