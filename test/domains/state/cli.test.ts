/** svc state list|get through the compiled binary: key names and sizes without values; get opens one value and is audited. */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig, openContext } from "../../../src/open.ts";
import { silentLogger } from "../../../src/core/log.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { runSvc } from "../../support/binary.ts";
import { bearer, makeHarness, tempDir } from "../../support/harness.ts";

test("svc state list shows names and sizes, never values; svc state get opens one and records it", async () => {
  const dir = join(tempDir("svc-statecli"), "data");
  const h = makeHarness({ dir });
  const { account } = accountWithSession(h.ctx);
  const auth = bearer(apiKeyFor(h.ctx, account.id).token);
  await h.json("PUT", "/v1/state/plan", { headers: auth, body: { value: { steps: ["sealed-step-one"] } } });
  await h.json("PUT", "/v1/state/cursor", { headers: auth, body: { value: 42, namespace: "run-7" } });
  h.close();

  const list = await runSvc(["state", "list", "--account", account.id, "--data-dir", dir]);
  expect(list.stderr).toBe("");
  expect(list.code).toBe(0);
  expect(list.stdout).toContain("2 of 10000 keys in 2 namespace(s)");
  expect(list.stdout).toContain("default  plan  v1");
  expect(list.stdout).toContain("run-7  cursor  v1  2 B");
  expect(list.stdout).not.toContain("sealed-step-one");
  const one = await runSvc(["state", "list", "--account", account.id, "--namespace", "run-7", "--json", "--data-dir", dir]);
  expect(JSON.parse(one.stdout).keys.map((k: any) => k.key)).toEqual(["cursor"]);

  const get = await runSvc(["state", "get", "plan", "--account", account.id, "--json", "--data-dir", dir]);
  expect(get.code).toBe(0);
  expect(JSON.parse(get.stdout)).toMatchObject({ key: "plan", namespace: "default", value: { steps: ["sealed-step-one"] }, version: 1 });
  expect((await runSvc(["state", "get", "cursor", "--account", account.id, "--namespace", "run-7", "--data-dir", dir])).stdout).toContain("42");

  expect((await runSvc(["state", "get", "nope", "--account", account.id, "--data-dir", dir])).code).toBe(1);
  expect((await runSvc(["state", "list", "--data-dir", dir])).code).toBe(2);
  expect((await runSvc(["state", "list", "--account", "acct_nope", "--data-dir", dir])).code).toBe(1);

  const ctx = openContext(loadConfig({ dataDir: dir }, {}), { log: silentLogger });
  try {
    const audited = ctx.db.query<{ action: string; actor: string }, []>("SELECT action, actor FROM audit_log WHERE action = 'state.get'").all();
    expect(audited).toHaveLength(2);
  } finally {
    ctx.close();
  }
}, 120_000);
