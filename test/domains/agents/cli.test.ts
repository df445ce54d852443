/** svc agents list|runs through the compiled binary: an account's agents and an agent's runs, never instructions, inputs or outputs. */
import { expect, test } from "bun:test";
import { runSvc } from "../../support/binary.ts";
import { type AgentsGateway, startAgentsGateway } from "./agents-support.ts";

test("svc agents list shows an account's agents; svc agents runs shows a run's status, turns and cost", async () => {
  const g: AgentsGateway = await startAgentsGateway();
  const marker = `private-instructions-${crypto.randomUUID()}`;
  const agent = await g.createAgent({ name: "reporter", instructions: marker, tools: ["state_get"] });
  await g.session("POST", `/v1/agents/${agent.id}/triggers`, { mailbox: true, max_runs_per_hour: 3 });
  const queued = await g.session("POST", `/v1/agents/${agent.id}/trigger`, { input: "private-input" });
  const done = await g.finished(agent.id, queued.body.id);
  expect(done.status).toBe("succeeded");
  await g.stop();
  g.h.close();
  const dir = ["--data-dir", g.h.dir];

  const list = await runSvc(["agents", "list", "--account", g.accountId, ...dir]);
  expect(list.stderr).toBe("");
  expect(list.code).toBe(0);
  expect(list.stdout).toContain(`${agent.id}  reporter  gpt-test  enabled  hook off  mailbox ≤3/h  tools: state_get`);
  expect(list.stdout).not.toContain(marker);
  const json = JSON.parse((await runSvc(["agents", "list", "--account", g.accountId, "--json", ...dir])).stdout);
  expect(json.agents[0]).toMatchObject({ id: agent.id, key_id: agent.key_id, mailbox_trigger: true, max_runs_per_hour: 3 });

  const runs = await runSvc(["agents", "runs", agent.id, ...dir]);
  expect(runs.code).toBe(0);
  expect(runs.stdout).toContain(`${done.id}  succeeded  manual  1 turn(s)  ${done.cost_micro_usd} µUSD`);
  expect(runs.stdout).not.toContain("private-input");
  expect(JSON.parse((await runSvc(["agents", "runs", agent.id, "--json", ...dir])).stdout).runs[0].id).toBe(done.id);

  expect((await runSvc(["agents", "list", ...dir])).code).toBe(2);
  expect((await runSvc(["agents", "list", "--account", "acct_nope", ...dir])).code).toBe(1);
  expect((await runSvc(["agents", "runs", "agt_nope", ...dir])).code).not.toBe(0);
});
