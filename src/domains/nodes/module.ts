/**
 * Fleet nodes: enrolment, approval, heartbeats, the public registry, gates, dispatch to nodes
 * (/v1/nodes, /v1/admin/nodes; `svc nodes …`, `svc node serve`).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { useNodeBackends } from "../sandboxes/index.ts";
import { nodeGroup, nodesGroup } from "./cli.ts";
import { nodesConfig } from "./config.ts";
import { fleetOf } from "./fleet.ts";
import { adminNodeRoutes, gateRoutes, heartbeatRoutes, registryRoutes } from "./routes.ts";
import { gatewayBenchMs, SWEEP_JOB, sweepEveryMs, sweepUnreachable } from "./service.ts";

export const nodesModule = defineModule({
  name: "nodes",
  config: nodesConfig,
  wire(ctx) {
    // The sandbox service reaches nodes only through this seam (pick a node, get a session's node).
    useNodeBackends(ctx, fleetOf(ctx));
  },
  routes: (ctx) => [registryRoutes(ctx), heartbeatRoutes(ctx), gateRoutes(ctx), ...(ctx.config.admin.token_sha256 ? [adminNodeRoutes(ctx)] : [])],
  jobs(ctx) {
    ctx.scheduler.every(SWEEP_JOB, sweepEveryMs(ctx), () => {
      sweepUnreachable(ctx);
    });
  },
  serve: {
    // The reference work behind speed_factor, measured before the first heartbeat rather than during it.
    start: (ctx) => void gatewayBenchMs(ctx),
  },
  cli: [nodesGroup, nodeGroup],
});
