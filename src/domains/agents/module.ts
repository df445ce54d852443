/**
 * Hosted agents: defined once, run on their own delegated key whenever a manual trigger, an
 * inbound hook or a mailbox message says so; every model and tool call receipted into the run.
 *
 * This file is the area's module (src/module.ts), listed in src/domains/index.ts; other areas
 * use index.ts, never this file.
 */
import { defineModule } from "../../module.ts";
import { agentsGroup } from "./cli.ts";
import { agentsConfig } from "./config.ts";
import { HookGuard } from "./hooks.ts";
import { executeRun } from "./loop.ts";
import { dispatchMailbox, MAILBOX_JOB } from "./mailbox.ts";
import { agentRoutes } from "./routes.ts";
import { RUN_JOB } from "./runs.ts";

export const agentsModule = defineModule({
  name: "agents",
  config: agentsConfig,
  wire: (ctx) => {
    ctx.agentHooks = new HookGuard(ctx);
  },
  routes: (ctx) => agentRoutes(ctx),
  jobs: (ctx) => {
    ctx.scheduler.register(RUN_JOB, (job, signal) => executeRun(ctx, job, signal));
    ctx.scheduler.register(MAILBOX_JOB, (job) => void dispatchMailbox(ctx, String(job.payload.agent_id)));
  },
  cli: [agentsGroup],
});
