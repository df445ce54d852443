/** Fleet nodes' svc.toml section (nodes.*; docs/nodes.md): the heartbeat contract and the gateway→node timeouts. */
import { type Static, Type as T } from "@sinclair/typebox";
import type { ConfigPart } from "../../config.ts";

export const NodesSection = T.Object(
  {
    /** How often a node heartbeats (told to each node in the heartbeat's answer; spec §8: 60 s). */
    heartbeat_secs: T.Integer({ minimum: 1, maximum: 3600 }),
    /** Heartbeats a node may miss before it is marked unreachable and its sessions stop. */
    missed_heartbeats: T.Integer({ minimum: 1, maximum: 100 }),
    /** Longest wait for a node's answer to a quick call (workspaces, files, listings). */
    request_timeout_secs: T.Integer({ minimum: 1, maximum: 600 }),
    /** Added to a run's own timeout before the gateway gives up on the node's answer. */
    run_grace_secs: T.Integer({ minimum: 1, maximum: 600 }),
    /** Longest wait for a snapshot (tar of a whole workspace on the node). */
    snapshot_timeout_secs: T.Integer({ minimum: 1, maximum: 3600 }),
  },
  { additionalProperties: false },
);

export type NodesConfig = Static<typeof NodesSection>;

declare module "../../config.ts" {
  interface DomainConfig {
    nodes: NodesConfig;
  }
}

export const NODES_DEFAULTS: NodesConfig = {
  heartbeat_secs: 60,
  missed_heartbeats: 2,
  request_timeout_secs: 30,
  run_grace_secs: 30,
  snapshot_timeout_secs: 180,
};

export const nodesConfig: ConfigPart = {
  sections: { nodes: { schema: NodesSection, default: NODES_DEFAULTS } },
  env: [
    { name: "SVC_NODES_HEARTBEAT_SECS", path: "nodes.heartbeat_secs", type: "integer" },
    { name: "SVC_NODES_MISSED_HEARTBEATS", path: "nodes.missed_heartbeats", type: "integer" },
  ],
};
