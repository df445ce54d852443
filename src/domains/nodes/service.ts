/**
 * Fleet nodes' rules: enrolment (a node key shown once, kept as sha256), approval, the two
 * gates (disabled, draining), heartbeats, the registry (GET /v1/nodes), and the sweep that
 * marks silent nodes unreachable and reports them lost to the sandbox service.
 *
 * Who may do what (docs/nodes.md): the operator (admin API or CLI) enrols, approves and gates
 * any node; the account a node was enrolled for may gate that node with its session; every
 * other caller sees the node as absent (404). Heartbeats come from the node, with its key.
 */
import type { Actor } from "../../core/audit.ts";
import { isoTime } from "../../core/clock.ts";
import { invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { newSecret, secretPrefix, sha256Hex } from "../../core/secrets.ts";
import type { Context } from "../../context.ts";
import { getAccount } from "../accounts/index.ts";
import { reportNodeLost, sandboxPosture } from "../sandboxes/index.ts";
import { fleetOf, languagesOf, modelsOf, reliabilityOf, SANDBOX_KIND, sealAad, servedKinds, staleAfterMs } from "./fleet.ts";
import type { NodeStatus } from "./models.ts";
import { referenceBenchMs, speedFactorOf } from "./speed.ts";
import {
  allNodeRows,
  getNodeRow,
  insertNode,
  markUnreachable,
  type NodeRow,
  recordHeartbeat,
  setApproved,
  setGate,
  staleRows,
} from "./store.ts";

export const NODE_KEY_PREFIX = "nk-svc";
export const DEFAULT_KINDS = ["sandbox"];
export type Gate = "disabled" | "draining";

/** Who acts on a node: the operator through a channel, or an account through its session. */
export type NodeActor = { actor: Actor } | { accountId: string };

// ---------------------------------------------------------------------------------------------
// Views

export interface RegistryEntry {
  id: string;
  name: string;
  kinds: string[];
  status: NodeStatus;
  approved: boolean;
  disabled: boolean;
  draining: boolean;
  reachable: boolean;
  version: string | null;
  languages: string[];
  models: string[];
  sandbox_available: boolean;
  capacity: number | null;
  in_flight: number;
  speed_factor: number | null;
  clamp_count: number;
  reliability: number | null;
  calls: { succeeded: number; failed: number };
  latency_ms: number | null;
  last_heartbeat_at: string | null;
  enrolled_at: string | null;
}

export interface AdminNodeView extends RegistryEntry {
  account_id: string | null;
  key_prefix: string;
  endpoint: string | null;
  sandbox_reason: string | null;
  approved_at: string | null;
  unreachable_since: string | null;
}

const reachableAt = (ctx: Context, row: NodeRow, now: number): boolean =>
  row.unreachable_at === null && row.last_heartbeat_at !== null && now - row.last_heartbeat_at <= staleAfterMs(ctx);

export function statusOf(ctx: Context, row: NodeRow, now = ctx.clock.now()): NodeStatus {
  if (!row.approved || row.last_heartbeat_at === null) return "pending";
  if (row.disabled) return "disabled";
  if (!reachableAt(ctx, row, now)) return "unreachable";
  if (row.draining) return "draining";
  return "live";
}

function registryEntry(ctx: Context, row: NodeRow, now: number): RegistryEntry {
  return {
    id: row.id,
    name: row.name,
    kinds: servedKinds(row),
    status: statusOf(ctx, row, now),
    approved: row.approved === 1,
    disabled: row.disabled === 1,
    draining: row.draining === 1,
    reachable: reachableAt(ctx, row, now),
    version: row.version,
    languages: languagesOf(row),
    models: modelsOf(row),
    sandbox_available: row.sandbox_available === 1,
    capacity: row.last_heartbeat_at === null ? null : row.capacity,
    in_flight: fleetOf(ctx).load(row.id),
    speed_factor: row.speed_factor,
    clamp_count: row.clamp_count,
    reliability: reliabilityOf(row),
    calls: { succeeded: row.calls_ok, failed: row.calls_failed },
    latency_ms: row.latency_ms,
    last_heartbeat_at: row.last_heartbeat_at === null ? null : isoTime(row.last_heartbeat_at),
    enrolled_at: isoTime(row.created_at),
  };
}

function adminView(ctx: Context, row: NodeRow, now = ctx.clock.now()): AdminNodeView {
  return {
    ...registryEntry(ctx, row, now),
    account_id: row.account_id,
    key_prefix: row.key_prefix,
    endpoint: row.endpoint,
    sandbox_reason: row.sandbox_reason,
    approved_at: row.approved_at === null ? null : isoTime(row.approved_at),
    unreachable_since: row.unreachable_at === null ? null : isoTime(row.unreachable_at),
  };
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host || "gateway";
  } catch {
    return "gateway";
  }
};

/** The public part of an operator's view (what an account sees of the node it gates). */
export function registryPart(view: AdminNodeView): RegistryEntry {
  const { account_id: _a, key_prefix: _k, endpoint: _e, sandbox_reason: _r, approved_at: _p, unreachable_since: _u, ...entry } = view;
  return entry;
}

/** The gateway's own entry, first in the registry. */
function gatewayEntry(ctx: Context): RegistryEntry {
  let models: string[] = [];
  try {
    models = ctx.catalog.current().listed().map((l) => l.model.id);
  } catch {
    models = [];
  }
  // What the gateway's own runner runs, when sandboxes run here (sandboxes.local and a working runner).
  const runner = ctx.config.sandboxes.local ? sandboxPosture(ctx).runner : null;
  const local = runner?.available === true;
  return {
    id: "gateway",
    name: hostOf(ctx.config.public_url),
    kinds: local ? ["gateway", SANDBOX_KIND] : ["gateway"],
    status: "live",
    approved: true,
    disabled: false,
    draining: false,
    reachable: true,
    version: ctx.version,
    languages: local ? runner.languages.filter((l) => l.available).map((l) => l.name) : [],
    models,
    sandbox_available: local,
    capacity: null,
    in_flight: 0,
    speed_factor: 1,
    clamp_count: 0,
    reliability: null,
    calls: { succeeded: 0, failed: 0 },
    latency_ms: null,
    last_heartbeat_at: null,
    enrolled_at: null,
  };
}

/** GET /v1/nodes: the gateway itself, then every enrolled node (oldest first). Never an endpoint, key or secret. */
export function registry(ctx: Context): RegistryEntry[] {
  const now = ctx.clock.now();
  return [gatewayEntry(ctx), ...allNodeRows(ctx).map((row) => registryEntry(ctx, row, now))];
}

/** Every node as the operator sees it (`svc nodes list`). */
export function listNodes(ctx: Context): AdminNodeView[] {
  const now = ctx.clock.now();
  return allNodeRows(ctx).map((row) => adminView(ctx, row, now));
}

export function getNode(ctx: Context, nodeId: string): AdminNodeView {
  const row = getNodeRow(ctx, nodeId);
  if (!row) throw notFound("node");
  return adminView(ctx, row);
}

// ---------------------------------------------------------------------------------------------
// Enrolment and approval (operator)

export interface EnrollInput {
  name: string;
  kinds?: string[];
  accountId?: string | null;
}

export interface Enrolment {
  node_id: string;
  node_key: string;
  name: string;
  kinds: string[];
  account_id: string | null;
  status: "pending";
  enrolled_at: string;
}

/** A new node and its key (returned once; only its sha256 is stored). */
export function enrollNode(ctx: Context, actor: Actor, input: EnrollInput): Enrolment {
  const name = input.name.trim();
  if (!name) throw invalidField("name", "must not be blank");
  const kinds = input.kinds?.length ? [...new Set(input.kinds)] : DEFAULT_KINDS;
  const accountId = input.accountId ?? null;
  if (accountId !== null) getAccount(ctx, accountId); // 404 for an unknown account
  const id = newId("node");
  const key = newSecret(NODE_KEY_PREFIX);
  ctx.tx.run(() => {
    insertNode(ctx, { id, name, accountId, kinds, keySha256: sha256Hex(key), keyPrefix: secretPrefix(key) });
    ctx.audit.record(actor, "node.enroll", id, { name, kinds, account_id: accountId });
  });
  return { node_id: id, node_key: key, name, kinds, account_id: accountId, status: "pending", enrolled_at: isoTime(ctx.clock.now()) };
}

/**
 * Approves a node (the gateway may dispatch to it from its next heartbeat on, or now when it
 * already heartbeats) or withdraws approval (nothing more is dispatched, and its sessions stop
 * with node_unreachable).
 */
export function approveNode(ctx: Context, actor: Actor, nodeId: string, approved: boolean): AdminNodeView {
  const row = getNodeRow(ctx, nodeId);
  if (!row) throw notFound("node");
  ctx.tx.run(() => {
    setApproved(ctx, nodeId, approved);
    ctx.audit.record(actor, approved ? "node.approve" : "node.unapprove", nodeId, {});
  });
  if (row.approved === 1 && !approved) lost(ctx, nodeId, "approval withdrawn");
  return getNode(ctx, nodeId);
}

// ---------------------------------------------------------------------------------------------
// Gates (operator, or the account the node was enrolled for)

/**
 * Turns a gate on or off. draining: no new runs or sessions go to the node; its sessions
 * continue. disabled: nothing goes to it and its sessions stop (node_unreachable), as when it
 * is lost. An account may gate only a node enrolled for it; any other node answers 404.
 */
export function gateNode(ctx: Context, who: NodeActor, nodeId: string, gate: Gate, on: boolean): AdminNodeView {
  const row = getNodeRow(ctx, nodeId);
  if (!row || ("accountId" in who && row.account_id !== who.accountId)) throw notFound("node");
  ctx.tx.run(() => {
    setGate(ctx, nodeId, gate, on);
    if ("actor" in who) ctx.audit.record(who.actor, `node.${gate}.${on ? "on" : "off"}`, nodeId, {});
  });
  if (gate === "disabled" && on && row.disabled === 0 && row.approved === 1) lost(ctx, nodeId, "disabled");
  return getNode(ctx, nodeId);
}

// ---------------------------------------------------------------------------------------------
// Heartbeats (the node)

export interface HeartbeatInput {
  endpoint: string;
  version: string;
  dispatch_secret: string;
  languages: string[];
  capacity: number;
  kinds?: string[];
  models?: string[];
  sandbox?: { available: boolean; reason?: string | null };
  posture?: Record<string, unknown>;
  bench_ms?: number;
}

export interface HeartbeatAnswer {
  node_id: string;
  status: NodeStatus;
  approved: boolean;
  heartbeat_secs: number;
  missed_heartbeats: number;
}

/** http(s), a host, no credentials, query or fragment; kept without a trailing slash. */
export function parseEndpoint(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidField("endpoint", "must be an http:// or https:// URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidField("endpoint", "must be an http:// or https:// URL");
  if (!url.hostname) throw invalidField("endpoint", "must name a host");
  if (url.username || url.password) throw invalidField("endpoint", "must not carry a user name or password (the gateway authenticates with the dispatch secret)");
  if (url.search || url.hash) throw invalidField("endpoint", "must not carry a query or fragment");
  return url.href.replace(/\/+$/, "");
}

const gatewayBench = new WeakMap<Context, number>();

/** The gateway's own time at the reference work (measured once per context, ~10 ms of CPU). */
export function gatewayBenchMs(ctx: Context): number {
  let own = gatewayBench.get(ctx);
  if (own === undefined) gatewayBench.set(ctx, (own = referenceBenchMs()));
  return own;
}

export function recordNodeHeartbeat(ctx: Context, nodeId: string, input: HeartbeatInput): HeartbeatAnswer {
  const row = getNodeRow(ctx, nodeId);
  if (!row) throw notFound("node"); // the key resolved a moment ago: only a concurrent removal gets here
  const endpoint = parseEndpoint(input.endpoint);
  const available = input.sandbox ? input.sandbox.available : input.languages.length > 0;
  const secretSha256 = sha256Hex(input.dispatch_secret);
  let speed: { factor: number; clamped: boolean } | null = null;
  if (input.bench_ms !== undefined) speed = speedFactorOf(gatewayBenchMs(ctx), input.bench_ms);
  recordHeartbeat(ctx, nodeId, {
    endpoint,
    // Sealed only when it changed (a node makes a new one at each start).
    secretSealed: row.dispatch_secret_sha256 === secretSha256 && row.dispatch_secret_sealed ? null : ctx.sealer.seal(input.dispatch_secret, sealAad(nodeId)),
    secretSha256,
    version: input.version,
    offeredKinds: input.kinds ? [...new Set(input.kinds)] : null,
    languages: available ? [...new Set(input.languages)] : [],
    models: input.models ? [...new Set(input.models)] : [],
    capacity: input.capacity,
    sandboxAvailable: available,
    sandboxReason: available ? null : (input.sandbox?.reason ?? "the node reported no sandbox languages"),
    posture: input.posture ? JSON.stringify(input.posture) : null,
    speedFactor: speed?.factor ?? null,
    clamped: speed?.clamped ?? false,
  });
  if (row.endpoint !== null && row.endpoint !== endpoint) ctx.log.info("a node moved to a new endpoint", { node_id: nodeId, endpoint });
  if (row.unreachable_at !== null) ctx.log.info("a node that was unreachable heartbeats again", { node_id: nodeId });
  const now = getNodeRow(ctx, nodeId)!;
  return {
    node_id: nodeId,
    status: statusOf(ctx, now),
    approved: now.approved === 1,
    heartbeat_secs: ctx.config.nodes.heartbeat_secs,
    missed_heartbeats: ctx.config.nodes.missed_heartbeats,
  };
}

// ---------------------------------------------------------------------------------------------
// The sweep (a scheduler job)

export const SWEEP_JOB = "nodes.sweep";

/** How often the sweep runs: a quarter of a heartbeat, between 1 and 15 seconds. */
export const sweepEveryMs = (ctx: Context): number => Math.min(15_000, Math.max(1000, Math.floor((ctx.config.nodes.heartbeat_secs * 1000) / 4)));

/**
 * Marks every node silent for nodes.missed_heartbeats heartbeats unreachable and reports it
 * lost (its sessions stop with node_unreachable). Reported first, marked after: a crash in
 * between reports it again at the next sweep (the sandbox service's stop is idempotent), never
 * not at all. Returns the nodes marked.
 */
export function sweepUnreachable(ctx: Context): string[] {
  const staleBefore = ctx.clock.now() - staleAfterMs(ctx);
  const marked: string[] = [];
  for (const row of staleRows(ctx, staleBefore)) {
    if (row.approved === 1 && row.disabled === 0) {
      try {
        reportNodeLost(ctx, row.id);
      } catch (err) {
        ctx.log.error("reporting a lost node failed; the next sweep tries again", { node_id: row.id, error: String(err) });
        continue;
      }
    }
    if (markUnreachable(ctx, row.id, staleBefore)) {
      fleetOf(ctx).forget(row.id);
      marked.push(row.id);
      ctx.log.warn("a node missed its heartbeats and is marked unreachable", { node_id: row.id, last_heartbeat_at: isoTime(row.last_heartbeat_at!) });
    }
  }
  return marked;
}

/** A node the gateway stops using on purpose: forget its backend, stop its sessions. */
function lost(ctx: Context, nodeId: string, why: string): void {
  fleetOf(ctx).forget(nodeId);
  try {
    reportNodeLost(ctx, nodeId);
  } catch (err) {
    ctx.log.error("reporting a node the gateway stopped using failed", { node_id: nodeId, why, error: String(err) });
  }
}
