/**
 * A gateway for the hosted-agent tests: the inference test gateway (real HTTP, the scheduler
 * running, providers on the local upstream stub, whose scripted tool calls drive the agents:
 * `[[call NAME {args}]]` in an agent's instructions), sandboxes where the sandbox uid can reach
 * them, and session helpers for the /v1/agents routes.
 */
import { closeSandboxes } from "../../../src/domains/sandboxes/index.ts";
import { bearer } from "../../support/harness.ts";
import { sandboxTempDir } from "../../support/sandbox-runner.ts";
import { type Gateway, type GatewayOptions, startGateway } from "../inference/inference-support.ts";

export interface AgentsGateway extends Gateway {
  /** A request with the session token (the /v1/agents management routes), through the harness (answers checked against the OpenAPI document). */
  session(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A request with the API key. */
  keyed(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Polls the run until it is no longer queued or running (bounded), and answers its detail. */
  finished(agentId: string, runId: string): Promise<any>;
  createAgent(body: Record<string, unknown>): Promise<any>;
}

/** `sandboxes`: run a sandbox runner on the gateway (for sandbox_run); off otherwise, so no warm launcher outlives a test that forgets to stop. */
export async function startAgentsGateway(options: GatewayOptions & { sandboxes?: boolean } = {}): Promise<AgentsGateway> {
  const g = await startGateway({
    ...options,
    harness: {
      ...options.harness,
      config: (c) => {
        if (options.sandboxes) c.sandboxes.dir = `${sandboxTempDir("svc-agents-sbx")}/gateway`;
        else c.sandboxes.local = false;
        c.scheduler.poll_ms = 20;
        options.harness?.config?.(c);
      },
    },
  });
  // Through the harness: the same app the server serves, with every answer checked against the OpenAPI document.
  const as = (token: string) => (method: string, path: string, body?: unknown) => g.h.json(method, path, { headers: bearer(token), ...(body === undefined ? {} : { body }) });
  const session = as(g.sessionToken);
  return {
    ...g,
    // The sandbox runner (started by a sandbox_run) is closed and awaited before the data dir goes: its warm launchers' groups must not outlive the file.
    async stop() {
      await closeSandboxes(g.h.ctx);
      await g.stop();
    },
    session,
    keyed: as(g.key),
    async finished(agentId, runId) {
      for (let i = 0; i < 600; i++) {
        const r = await session("GET", `/v1/agents/${agentId}/runs/${runId}`);
        if (r.status !== 200) throw new Error(`GET run: ${r.status} ${JSON.stringify(r.body)}`);
        if (r.body.status !== "queued" && r.body.status !== "running") return r.body;
        await Bun.sleep(25);
      }
      throw new Error(`run ${runId} did not finish`);
    },
    async createAgent(body) {
      const r = await session("POST", "/v1/agents", { name: "agent", model: "gpt-test", instructions: "Be brief.", ...body });
      if (r.status !== 201) throw new Error(`POST /v1/agents: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    },
  };
}
