/**
 * Fleet nodes: enrolment, approval, heartbeats, the public registry, gates, and dispatch of
 * sandboxes to nodes through the sandboxes area's seam (/v1/nodes, /v1/admin/nodes;
 * `svc nodes …`, `svc node serve`).
 *
 * The area's front door: what other areas may use. Its module is in module.ts.
 */
export { NODE_KEY_PREFIX, type NodePrincipal, resolveNodeKey } from "./principal.ts";
export {
  type AdminNodeView,
  approveNode,
  enrollNode,
  gateNode,
  getNode,
  listNodes,
  recordNodeHeartbeat,
  registry,
  type RegistryEntry,
  sweepUnreachable,
} from "./service.ts";
export { RemoteBackend } from "./remote-backend.ts";
