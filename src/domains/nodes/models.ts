/**
 * TypeBox models of the /v1/nodes and /v1/admin/nodes routes: request bodies and the exact
 * shapes served (service.ts builds them). The heartbeat body is open (a newer node may send
 * fields this gateway does not know yet; they are ignored), every other body is closed.
 */
import { t } from "elysia";
import { Int, Nullable } from "../../core/schemas.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });

const statusLiterals = (description?: string) =>
  t.Union([t.Literal("pending"), t.Literal("live"), t.Literal("unreachable"), t.Literal("disabled"), t.Literal("draining")], description ? { description } : {});
export type NodeStatus = "pending" | "live" | "unreachable" | "disabled" | "draining";

const Kind = t.String({ pattern: "^[a-z][a-z0-9_-]{0,31}$", error: "must be a lower-case word (a-z, 0-9, _ and -; at most 32 characters)" });
const Kinds = t.Array(Kind, { maxItems: 16, uniqueItems: true, description: "what the node is for, e.g. [\"sandbox\"]" });
const Language = t.String({ minLength: 1, maxLength: 32 });
const Model = t.String({ minLength: 1, maxLength: 200 });

export const NodeId = t.String({ minLength: 1, maxLength: 100 });

// ---------------------------------------------------------------------------------------------
// Admin

export const EnrollBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100, description: "a label for people" }),
    kinds: t.Optional(Kinds),
    account_id: t.Optional(Nullable(t.String({ minLength: 1, maxLength: 100, description: "the account whose sessions may drain and disable the node (docs/nodes.md); omitted: the operator only" }))),
  },
  closed,
);

export const Enrolled = t.Object(
  {
    node_id: t.String(),
    node_key: t.String({ description: "nk-svc_…: shown once, stored only as its sha256; give it to `svc node serve`" }),
    name: t.String(),
    kinds: t.Array(t.String()),
    account_id: Nullable(t.String()),
    status: t.Literal("pending"),
    enrolled_at: Time,
  },
  { ...closed, description: "The new node and its key (shown once)" },
);

export const ApproveBody = t.Object(
  { node_id: NodeId, approved: t.Boolean({ description: "true lets the gateway dispatch to the node; false stops it (its sessions stop with node_unreachable)" }) },
  closed,
);

// ---------------------------------------------------------------------------------------------
// The registry (public) and the operator's view

const registryFields = {
  id: t.String({ description: "\"gateway\" for the gateway itself, else the node's id" }),
  name: t.String(),
  kinds: t.Array(t.String(), { description: "what it serves: the kinds it was enrolled for that it offers" }),
  status: statusLiterals("pending: not approved or never heard from; disabled; unreachable: missed its heartbeats; draining: takes no new work; live"),
  approved: t.Boolean(),
  disabled: t.Boolean(),
  draining: t.Boolean(),
  reachable: t.Boolean({ description: "heard from within nodes.missed_heartbeats heartbeats" }),
  version: Nullable(t.String()),
  languages: t.Array(t.String(), { description: "sandbox languages it can run now" }),
  models: t.Array(t.String()),
  sandbox_available: t.Boolean({ description: "its runner works (bubblewrap present and proven); a node without is never picked" }),
  capacity: Nullable(Int({ minimum: 0, description: "executions it takes at once" })),
  in_flight: Int({ minimum: 0, description: "executions this gateway has running there now" }),
  speed_factor: Nullable(t.Number({ minimum: 0, description: "its speed at the same reference work, relative to the gateway (1 = as fast)" })),
  clamp_count: Int({ minimum: 0, description: "heartbeats whose speed claim was out of range and clamped" }),
  reliability: Nullable(t.Number({ minimum: 0, maximum: 1, description: "share of gateway→node calls answered; null before the first" })),
  calls: t.Object({ succeeded: Int({ minimum: 0 }), failed: Int({ minimum: 0 }) }, closed),
  latency_ms: Nullable(Int({ minimum: 0, description: "moving average of a call's overhead (its time less the node's own execution time)" })),
  last_heartbeat_at: Nullable(Time),
  enrolled_at: Nullable(Time),
};

export const RegistryEntry = t.Object(registryFields, { ...closed, description: "A node of the registry; never an endpoint, key or secret" });

export const AdminNode = t.Object(
  {
    ...registryFields,
    account_id: Nullable(t.String()),
    key_prefix: t.String({ description: "the start of its node key, to tell keys apart" }),
    endpoint: Nullable(t.String({ description: "where the gateway reaches it (from its heartbeats)" })),
    sandbox_reason: Nullable(t.String({ description: "why its runner cannot run sandboxes, when it cannot" })),
    approved_at: Nullable(Time),
    unreachable_since: Nullable(Time),
  },
  { ...closed, description: "A node as the operator sees it" },
);

// ---------------------------------------------------------------------------------------------
// Heartbeat (node class)

export const HeartbeatBody = t.Object(
  {
    endpoint: t.String({ minLength: 1, maxLength: 2048, description: "http(s) URL the gateway reaches the node agent at" }),
    version: t.String({ minLength: 1, maxLength: 100 }),
    dispatch_secret: t.String({
      pattern: "^[A-Za-z0-9._~+/=-]{32,256}$",
      error: "must be 32 to 256 token characters",
      description: "the random bearer the node agent accepts from the gateway; the gateway keeps it sealed",
    }),
    languages: t.Array(Language, { maxItems: 32, description: "sandbox languages the node can run" }),
    capacity: Int({ minimum: 0, maximum: 100_000, description: "executions it takes at once" }),
    kinds: t.Optional(Kinds),
    models: t.Optional(t.Array(Model, { maxItems: 1000 })),
    sandbox: t.Optional(
      t.Object(
        { available: t.Boolean(), reason: t.Optional(Nullable(t.String({ maxLength: 2000 }))) },
        { description: "whether its runner works (bubblewrap present and proven), and why not" },
      ),
    ),
    posture: t.Optional(t.Record(t.String(), t.Unknown(), { description: "the node runner's posture (languages, limits, isolation)" })),
    bench_ms: t.Optional(t.Number({ exclusiveMinimum: 0, maximum: 1_000_000, description: "its time at the reference work (speed_factor)" })),
  },
  { additionalProperties: true },
);

export const HeartbeatAnswer = t.Object(
  {
    node_id: t.String(),
    status: statusLiterals(),
    approved: t.Boolean(),
    heartbeat_secs: Int({ minimum: 1, description: "send the next heartbeat within this long" }),
    missed_heartbeats: Int({ minimum: 1, description: "this many missed heartbeats mark the node unreachable" }),
  },
  closed,
);

// ---------------------------------------------------------------------------------------------
// Gates (session class)

export const GateParams = t.Object({
  id: NodeId,
  gate: t.Union([t.Literal("disabled"), t.Literal("draining")], { error: "must be disabled or draining" }),
});

export const GateBody = t.Object({ set: t.Boolean({ description: "true turns the gate on, false lifts it" }) }, closed);
