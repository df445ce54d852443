/**
 * The fleet as one context sees it: which node takes the next run (pick), the backend of the
 * node a session lives on (get), and the executions this gateway has running on each node
 * (in-flight, kept in memory: it is this process's own load). Plugged into the sandboxes area's
 * seam from the module's wire().
 *
 * Dispatch (docs/nodes.md): a node is picked when it is approved, neither disabled nor
 * draining, heard from within nodes.missed_heartbeats heartbeats, has a working runner, was
 * enrolled for and offers the "sandbox" kind, runs the language, and has fewer executions in
 * flight than its capacity. Among those: the least loaded (in-flight ÷ capacity), then the most
 * reliable, then the lowest latency, then the oldest enrolment.
 */
import type { Context } from "../../context.ts";
import type { NodeBackends, Posture, SandboxBackend } from "../sandboxes/index.ts";
import { type NodeLink, RemoteBackend } from "./remote-backend.ts";
import { dispatchableRows, getNodeRow, type NodeRow, recordCall } from "./store.ts";

export const SANDBOX_KIND = "sandbox";

const parseList = (json: string | null): string[] => {
  if (json === null) return [];
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
};

/** The kinds a node serves: those it was enrolled for that it offers (all of them when it says nothing). */
export function servedKinds(row: NodeRow): string[] {
  const enrolled = parseList(row.kinds);
  if (row.offered_kinds === null) return enrolled;
  const offered = new Set(parseList(row.offered_kinds));
  return enrolled.filter((k) => offered.has(k));
}

export const languagesOf = (row: NodeRow): string[] => parseList(row.languages);
export const modelsOf = (row: NodeRow): string[] => parseList(row.models);

/** A node missing this many heartbeats is stale (not picked, and marked unreachable by the sweep). */
export const staleAfterMs = (ctx: Context): number => ctx.config.nodes.missed_heartbeats * ctx.config.nodes.heartbeat_secs * 1000;

export const reliabilityOf = (row: NodeRow): number | null => {
  const total = row.calls_ok + row.calls_failed;
  return total === 0 ? null : Math.round((row.calls_ok / total) * 1000) / 1000;
};

export class Fleet implements NodeBackends {
  private readonly inFlight = new Map<string, number>();
  /** One backend per node, rebuilt when its endpoint or secret changes (a node that restarted). */
  private readonly backends = new Map<string, { key: string; backend: RemoteBackend }>();

  constructor(private readonly ctx: Context) {}

  load(nodeId: string): number {
    return this.inFlight.get(nodeId) ?? 0;
  }

  pick({ language }: { language?: string }): SandboxBackend | null {
    const now = this.ctx.clock.now();
    const candidates = dispatchableRows(this.ctx, now - staleAfterMs(this.ctx)).filter(
      (row) =>
        row.capacity > 0 &&
        this.load(row.id) < row.capacity &&
        servedKinds(row).includes(SANDBOX_KIND) &&
        (language === undefined || languagesOf(row).includes(language)),
    );
    if (!candidates.length) return null;
    const score = (row: NodeRow) => this.load(row.id) / row.capacity;
    candidates.sort(
      (a, b) =>
        score(a) - score(b) ||
        (reliabilityOf(b) ?? 1) - (reliabilityOf(a) ?? 1) ||
        (a.latency_ms ?? Number.MAX_SAFE_INTEGER) - (b.latency_ms ?? Number.MAX_SAFE_INTEGER) ||
        a.created_at - b.created_at,
    );
    for (const row of candidates) {
      const backend = this.backendOf(row);
      if (backend) return backend;
    }
    return null;
  }

  /**
   * The backend of a node the sandbox service already uses (its sessions live there): approved,
   * not disabled, not marked unreachable. Draining nodes keep serving what they hold.
   */
  get(nodeId: string): SandboxBackend | null {
    const row = getNodeRow(this.ctx, nodeId);
    if (!row || !row.approved || row.disabled || row.unreachable_at !== null) return null;
    return this.backendOf(row);
  }

  private backendOf(row: NodeRow): RemoteBackend | null {
    if (!row.endpoint || !row.dispatch_secret_sealed || !row.dispatch_secret_sha256) return null;
    const key = `${row.endpoint} ${row.dispatch_secret_sha256} ${row.last_heartbeat_at}`;
    const cached = this.backends.get(row.id);
    if (cached?.key === key) return cached.backend;
    let secret: string;
    try {
      secret = this.ctx.sealer.openText(row.dispatch_secret_sealed, sealAad(row.id));
    } catch (err) {
      this.ctx.log.error("a node's dispatch secret does not open (master key changed?); the node is skipped until its next heartbeat", { node_id: row.id, error: String(err) });
      return null;
    }
    const backend = new RemoteBackend(this.linkOf(row, secret));
    this.backends.set(row.id, { key, backend });
    return backend;
  }

  private linkOf(row: NodeRow, secret: string): NodeLink {
    const { nodes } = this.ctx.config;
    let posture: Posture | null = null;
    if (row.posture) {
      try {
        posture = JSON.parse(row.posture) as Posture;
      } catch {
        posture = null;
      }
    }
    return {
      nodeId: row.id,
      endpoint: row.endpoint!,
      secret,
      posture,
      timeouts: { requestMs: nodes.request_timeout_secs * 1000, runGraceMs: nodes.run_grace_secs * 1000, snapshotMs: nodes.snapshot_timeout_secs * 1000 },
      begin: () => this.inFlight.set(row.id, this.load(row.id) + 1),
      end: () => {
        const n = this.load(row.id) - 1;
        if (n > 0) this.inFlight.set(row.id, n);
        else this.inFlight.delete(row.id);
      },
      outcome: (ok, overheadMs) => {
        try {
          recordCall(this.ctx, row.id, ok, overheadMs);
        } catch (err) {
          // A call that ends after its context closed (shutdown) has nowhere to be counted.
          this.ctx.log.debug("a node call's outcome was not recorded", { node_id: row.id, error: String(err) });
        }
      },
    };
  }

  /** Forgets a node's backend (after it was disabled, unapproved or lost). */
  forget(nodeId: string): void {
    this.backends.delete(nodeId);
  }
}

/** The AAD that binds a sealed dispatch secret to its node. */
export const sealAad = (nodeId: string): string => `nodes.dispatch_secret:${nodeId}`;

const fleets = new WeakMap<Context, Fleet>();

/** This context's fleet (made on first use). */
export function fleetOf(ctx: Context): Fleet {
  let fleet = fleets.get(ctx);
  if (!fleet) fleets.set(ctx, (fleet = new Fleet(ctx)));
  return fleet;
}
