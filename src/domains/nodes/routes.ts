/**
 * /v1/nodes (public registry, node heartbeats, session gates) and /v1/admin/nodes (operator
 * enrolment and approval). Thin: the rules are in service.ts, the shapes in models.ts.
 */
import { Elysia, t } from "elysia";
import { bareArray } from "../../core/envelopes.ts";
import { errors } from "../../core/schemas.ts";
import type { Context } from "../../context.ts";
import { guards } from "../../guards.ts";
import * as M from "./models.ts";
import { approveNode, enrollNode, gateNode, listNodes, recordNodeHeartbeat, registry, registryPart } from "./service.ts";

const tags = ["nodes"];

/** GET /v1/nodes: the public registry. */
export function registryRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/nodes" })
    .use(guards.public(ctx))
    .get("", () => bareArray(registry(ctx)), {
      response: { 200: t.Array(M.RegistryEntry, { description: "The gateway first, then enrolled nodes, oldest first (bare array)" }) },
      detail: { summary: "Node registry: the gateway and enrolled fleet nodes with kinds, languages, status, speed, reliability and latency", tags },
    });
}

/** POST /v1/nodes/heartbeat: a node, with its nk-svc_ key. */
export function heartbeatRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/nodes" })
    .use(guards.node(ctx))
    .post("/heartbeat", ({ principal, body }) => recordNodeHeartbeat(ctx, principal.nodeId, body), {
      body: M.HeartbeatBody,
      response: { 200: M.HeartbeatAnswer },
      detail: { summary: "A node's heartbeat: where it listens, what it runs, its capacity and dispatch secret", tags, security: [{ node: [] }] },
    });
}

/** POST /v1/nodes/:id/:gate: the account a node was enrolled for drains or disables it. */
export function gateRoutes(ctx: Context) {
  return new Elysia({ prefix: "/v1/nodes" })
    .use(guards.session(ctx))
    .post("/:id/:gate", ({ principal, params, body }) => registryPart(gateNode(ctx, { accountId: principal.accountId }, params.id, params.gate, body.set)), {
      params: M.GateParams,
      body: M.GateBody,
      response: { 200: M.RegistryEntry },
      detail: {
        summary: "Drain or disable a node enrolled for this account (:gate is disabled or draining); other nodes answer 404",
        tags,
        security: [{ session: [] }],
      },
    });
}

/** /v1/admin/nodes: the fleet, enrol, approve and gate (mounted only with an admin token). */
export function adminNodeRoutes(ctx: Context) {
  const security = [{ admin: [] }];
  return new Elysia({ prefix: "/v1/admin/nodes" })
    .use(guards.admin(ctx))
    .get("", () => bareArray(listNodes(ctx)), {
      response: { 200: t.Array(M.AdminNode, { description: "Every enrolled node, oldest first, as the operator sees it (bare array; the gateway itself is not listed)" }) },
      detail: { summary: "The fleet as the operator sees it: every enrolled node with its account, key prefix, endpoint and gates (never a key or secret)", tags: ["admin", ...tags], security },
    })
    .post(
      "/enroll",
      ({ body, set }) => {
        set.status = 201;
        return enrollNode(ctx, "admin_api", { name: body.name, kinds: body.kinds, accountId: body.account_id ?? null });
      },
      {
        body: M.EnrollBody,
        // 404: account_id names no account.
        response: { 201: M.Enrolled, ...errors(404) },
        detail: { summary: "Enrol a fleet node: its nk-svc_ key is returned once", tags: ["admin", ...tags], security },
      },
    )
    .post("/approve", ({ body }) => approveNode(ctx, "admin_api", body.node_id, body.approved), {
      body: M.ApproveBody,
      // 404: node_id names no node.
      response: { 200: M.AdminNode, ...errors(404) },
      detail: { summary: "Approve a node for dispatch, or withdraw approval", tags: ["admin", ...tags], security },
    })
    // Same params and body as the account's POST /v1/nodes/:id/:gate, for any node, audited as admin_api.
    .post("/:id/:gate", ({ params, body }) => gateNode(ctx, { actor: "admin_api" }, params.id, params.gate, body.set), {
      params: M.GateParams,
      body: M.GateBody,
      response: { 200: M.AdminNode },
      detail: {
        summary: "Drain or disable any node (:gate is disabled or draining; {set: false} lifts it); disabling stops its sessions",
        tags: ["admin", ...tags],
        security,
      },
    });
}
