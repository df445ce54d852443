/**
 * A harness for the sandbox service over HTTP: the ordinary test harness (makeHarness) whose
 * sandboxes live in a temp dir the sandbox uid can pass through (a root gateway drops to it
 * before bwrap; the harness's own data dir is 0700), closed with the gateway's runner, plus
 * tenants with credit and a key, and a fake fleet: NodeBackends backed by a second real runner
 * (a test double of the seam the nodes area plugs into, not of the sandbox service).
 */
import { join } from "node:path";
import type { Context } from "../../src/context.ts";
import { type Harness, type HarnessOptions, makeHarness, bearer } from "./harness.ts";
import { accountWithSession, apiKeyFor } from "./fixtures.ts";
import { sandboxTempDir } from "./sandbox-runner.ts";
import {
  closeSandboxes,
  createLocalBackend,
  type LocalBackend,
  type NodeBackends,
  type SandboxBackend,
  useNodeBackends,
} from "../../src/domains/sandboxes/index.ts";

export const USD = 1_000_000;

export interface SandboxHarness extends Harness {
  close(): Promise<void>;
}

export function sandboxHarness(options: HarnessOptions = {}): SandboxHarness {
  const dir = sandboxTempDir("svc-sbx");
  const h = makeHarness({
    ...options,
    config: (c) => {
      c.sandboxes.dir = join(dir, "gateway");
      options.config?.(c);
    },
  });
  return {
    ...h,
    async close() {
      await closeSandboxes(h.ctx);
      h.close();
    },
  };
}

export interface Tenant {
  accountId: string;
  /** API key (scope sandboxes) headers. */
  key: Record<string, string>;
  keyId: string;
  /** Session headers (usage routes). */
  session: Record<string, string>;
}

/** An account with `usd` of credit, a sandboxes key and a session. */
export function tenant(ctx: Context, usd = 10, opts: { monthlyCap?: number } = {}): Tenant {
  const { account, session } = accountWithSession(ctx);
  if (usd > 0) ctx.ledger.credit(account.id, Math.round(usd * USD), { type: "deposit" });
  const key = apiKeyFor(ctx, account.id, { scopes: ["sandboxes"], monthlyCap: opts.monthlyCap });
  return { accountId: account.id, key: bearer(key.token), keyId: key.id, session: bearer(session.token) };
}

export const balanceOf = (ctx: Context, accountId: string) => ctx.ledger.balance(accountId);

/**
 * A fleet of real runners standing in for enrolled nodes: `pick` returns the first node not
 * marked down, `get` finds one by id. Each node is a LocalBackend with its own node id and
 * directory, as `svc node serve` would run it. close() stops their runners.
 */
export interface FakeFleet extends NodeBackends {
  nodes: Map<string, LocalBackend>;
  down: Set<string>;
  close(): Promise<void>;
}

export async function fakeFleet(ctx: Context, nodeIds: string[], wrap: (b: LocalBackend) => SandboxBackend = (b) => b): Promise<FakeFleet> {
  const root = sandboxTempDir("svc-sbx-node");
  const nodes = new Map<string, LocalBackend>();
  for (const id of nodeIds) nodes.set(id, await createLocalBackend({ dir: join(root, id), nodeId: id, workspaceQuotaBytes: 64 * 1024 * 1024, runner: { warmLaunchers: 1 } }));
  const down = new Set<string>();
  const fleet: FakeFleet = {
    nodes,
    down,
    pick: () => {
      for (const [id, b] of nodes) if (!down.has(id)) return wrap(b);
      return null;
    },
    get: (id) => {
      const b = nodes.get(id);
      return b && !down.has(id) ? wrap(b) : null;
    },
    async close() {
      for (const b of nodes.values()) await b.close();
    },
  };
  useNodeBackends(ctx, fleet);
  return fleet;
}

/** Parses a text/event-stream body into its events (event name, JSON data). */
export function sseEvents(text: string): { event: string; data: any }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "message";
      const data = lines
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n");
      return { event, data: JSON.parse(data) };
    });
}

/** A request straight to the app, without the harness's served-vs-declared check (for bodies a test must read twice, or streams). */
export function rawRequest(h: Harness, method: string, path: string, init: { headers?: Record<string, string>; body?: RequestInit["body"] } = {}): Promise<Response> {
  return h.app.handle(new Request(`http://svc.test${path}`, { method, headers: init.headers, body: init.body }));
}

/** The decoded payload of a base64url receipt. */
export const receiptPayload = (receipt: string): any => JSON.parse(Buffer.from(receipt, "base64url").toString("utf8"));

/**
 * A fleet of one node that runs nothing: its sandboxes fail to start (runner_error) and its
 * workspaces are names only. For tests that need the service's events, not a sandbox (the
 * webhook catalogue): no bubblewrap, nothing to close.
 */
export function inertFleet(ctx: Context, nodeId = "node_inert"): void {
  const failed = async () => ({
    status: "runner_error" as const,
    exit_code: null,
    signal: null,
    stdout: "",
    stderr: "",
    stdout_truncated: false,
    stderr_truncated: false,
    timed_out: false,
    killed_reason: null,
    duration_ms: 0,
    cpu_ms: null,
    memory_peak_bytes: null,
    oom_killed: false,
    error: "the sandbox did not start",
  });
  let n = 0;
  const backend: SandboxBackend = {
    nodeId,
    posture: () => Promise.reject(new Error("no posture")),
    run: failed,
    exec: failed,
    createWorkspace: async () => ({ id: `ws-inert${++n}` }),
    readFile: async () => new Uint8Array(0),
    writeFile: async () => {},
    listFiles: async () => [],
    snapshot: async () => ({ bytes: 0 }),
    deleteSnapshot: async () => {},
    removeWorkspace: async () => {},
  };
  useNodeBackends(ctx, { pick: () => backend, get: (id) => (id === nodeId ? backend : null) });
}
