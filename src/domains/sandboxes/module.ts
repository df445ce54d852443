/**
 * Code sandboxes: metered one-shot runs and persistent sessions under bubblewrap, on the
 * gateway or on enrolled fleet nodes (/v1/sandboxes/*, /v1/usage/sandboxes, /v1/terminal/run).
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { sandboxesConfig } from "./config.ts";
import { registerSandboxJobs } from "./jobs.ts";
import { onNodeLost } from "./node-backends.ts";
import { sandboxRoutes } from "./routes.ts";
import { SandboxRuntime } from "./runtime.ts";
import { stopNodeSessions } from "./sessions.ts";
import { terminalRoutes } from "./terminal-routes.ts";
import { sandboxUsageRoutes } from "./usage-routes.ts";

export const sandboxesModule = defineModule({
  name: "sandboxes",
  config: sandboxesConfig,
  wire(ctx) {
    ctx.sandboxes = new SandboxRuntime(ctx);
    // A node that missed its heartbeats: its live sessions stop with node_unreachable.
    onNodeLost(ctx, (nodeId) => void stopNodeSessions(ctx, nodeId));
  },
  routes: (ctx) => [sandboxRoutes(ctx), sandboxUsageRoutes(ctx), terminalRoutes(ctx)],
  jobs: registerSandboxJobs,
  serve: {
    // The runner proves itself (one sandbox) before the server listens: the first run is not
    // slowed by it, and GET /v1/status shows the posture from the start.
    // A runner that cannot start (its directory unwritable) does not keep the gateway from
    // serving everything else: runs then go to nodes, or answer 503 no_sandbox_node.
    async start(ctx) {
      await ctx.sandboxes.local()?.catch((err: unknown) => ctx.log.error("the sandbox runner did not start", { error: err instanceof Error ? err.message : String(err) }));
    },
    stop: (ctx) => ctx.sandboxes.close(),
  },
});
