/** The node class (spec §5): Bearer nk-svc_…, looked up by its sha256 (guards.node in src/guards.ts). */
import { unauthorized } from "../../core/errors.ts";
import type { Context } from "../../context.ts";
import { NODE_KEY_PREFIX } from "./service.ts";
import { nodeIdByKey } from "./store.ts";

export { NODE_KEY_PREFIX };

export interface NodePrincipal {
  kind: "node";
  nodeId: string;
}

export function resolveNodeKey(ctx: Context, keySha256: string): NodePrincipal {
  const nodeId = nodeIdByKey(ctx, keySha256);
  if (!nodeId) throw unauthorized("invalid_node_key", "the node key is not valid (enrol the node again: svc nodes enroll)");
  return { kind: "node", nodeId };
}
