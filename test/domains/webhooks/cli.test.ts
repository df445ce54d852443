/**
 * `svc webhooks …` through the compiled binary: list, deliveries, enable, replay (picked up by a
 * running svc serve), revoke, and their usage errors.
 */
import { beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { parseSince } from "../../../src/domains/webhooks/cli.ts";
import { loadConfig } from "../../../src/open.ts";
import { openContext } from "../../../src/open.ts";
import { ManualClock } from "../../../src/core/clock.ts";
import { silentLogger } from "../../../src/core/log.ts";
import { createAccount } from "../../../src/domains/accounts/service.ts";
import { mintKey } from "../../../src/domains/keys/service.ts";
import { registerWebhookJobs, RETRY_DELAYS_MS } from "../../../src/domains/webhooks/delivery.ts";
import { createWebhook } from "../../../src/domains/webhooks/service.ts";
import { runSvc, serveSvc, svcBinary } from "../../support/binary.ts";
import { tempDir } from "../../support/harness.ts";
import { startReceiver } from "../../support/receiver.ts";

beforeAll(async () => {
  await svcBinary();
}, 120_000);

const HOUR = 3_600_000;

test("--since takes an RFC 3339 time or a duration ago", () => {
  const now = Date.UTC(2026, 10, 21, 12);
  expect(parseSince("90m", now)).toBe(now - 90 * 60_000);
  expect(parseSince("2d", now)).toBe(now - 2 * 86_400_000);
  expect(parseSince("2026-11-21T09:00:00Z", now)).toBe(Date.UTC(2026, 10, 21, 9));
  for (const bad of ["yesterday", "5", "-2h", "2026"]) expect(() => parseSince(bad, now)).toThrow("--since");
});

test("an operator sees a failing webhook, re-enables it and replays what it missed; svc serve delivers", async () => {
  const dir = join(tempDir(), "data");
  expect((await runSvc(["setup", "--yes", "--data-dir", dir, "--replica", "off", "--allow-private-webhooks"])).code).toBe(0);
  const rx = await startReceiver();
  rx.fallback = 500;

  // Two hours ago, a receiver outage: five events fail every attempt and the webhook is disabled.
  const clock = new ManualClock(Date.now() - 2 * HOUR);
  const ctx = openContext(loadConfig({ dataDir: dir }, {}), { clock, log: silentLogger });
  registerWebhookJobs(ctx);
  const account = createAccount(ctx);
  const hook = await createWebhook(ctx, { accountId: account.id, url: rx.url("/ops"), events: ["key_created"] });
  rx.setSecret("/ops", hook.secret);
  for (let i = 0; i < 5; i++) mintKey(ctx, { accountId: account.id });
  await Promise.resolve(); // the fan-out runs right after the commits
  await ctx.scheduler.runDue();
  for (const delay of RETRY_DELAYS_MS) {
    clock.advance(delay);
    await ctx.scheduler.runDue();
  }
  ctx.close();
  expect(rx.received).toHaveLength(20);
  const id = hook.view.id;
  const loc = ["--data-dir", dir];

  const listed = await runSvc(["webhooks", "list", "--account", account.id, ...loc]);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain(`${id}  disabled`);
  expect(listed.stdout).toContain("5 failed in a row");
  expect(listed.stdout).not.toContain(hook.secret);
  const json = JSON.parse((await runSvc(["webhooks", "list", "--account", account.id, "--json", ...loc])).stdout);
  expect(json[0]).toMatchObject({ id, status: "disabled", consecutive_failures: 5 });
  expect(JSON.stringify(json)).not.toContain("whsec_");

  const log = await runSvc(["webhooks", "deliveries", id, ...loc]);
  expect(log.code).toBe(0);
  expect(log.stdout.trim().split("\n")).toHaveLength(5);
  expect(log.stdout).toContain("failed     attempts 4  500");

  const refused = await runSvc(["webhooks", "replay", id, "--since", "3h", ...loc]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`svc webhooks enable ${id}`);
  const enabled = await runSvc(["webhooks", "enable", id, ...loc]);
  expect(enabled.code).toBe(0);
  expect(enabled.stdout).toContain(`${id} is active`);
  const replayed = await runSvc(["webhooks", "replay", id, "--since", "3h", ...loc]);
  expect(replayed.code).toBe(0);
  expect(replayed.stdout).toContain(`queued 5 events for ${id}`);

  // A running server picks the queued attempts up from the database.
  rx.fallback = 200;
  const served = await serveSvc(dir);
  try {
    await rx.waitFor(() => rx.accepted().length === 5, "the replayed events");
  } finally {
    expect(await served.stop()).toBe(0);
  }
  expect(new Set(rx.accepted().map((r) => r.json.id)).size).toBe(5);
  expect(rx.accepted().every((r) => r.signatureValid)).toBe(true);
  const db = new Database(join(dir, "svc.db"), { readonly: true });
  expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered'").get()!.n).toBe(5);
  db.close();

  const revoked = await runSvc(["webhooks", "revoke", id, ...loc]);
  expect(revoked.code).toBe(0);
  expect(revoked.stdout).toContain(`${id} is revoked`);
  const stays = await runSvc(["webhooks", "enable", id, ...loc]);
  expect(stays.code).toBe(1);
  expect(stays.stderr).toContain("stays revoked");
  await rx.close();
}, 60_000);

test("usage errors exit 2; an unknown webhook exits 1", async () => {
  const dir = join(tempDir(), "data");
  expect((await runSvc(["setup", "--yes", "--data-dir", dir, "--replica", "off"])).code).toBe(0);
  const loc = ["--data-dir", dir];
  expect((await runSvc(["webhooks", "replay", "wh_aaaaaaaaaaaaaaaaaaaaaaaa", ...loc])).code).toBe(2); // no --since
  expect((await runSvc(["webhooks", "replay", "wh_aaaaaaaaaaaaaaaaaaaaaaaa", "--since", "soon", ...loc])).code).toBe(2);
  expect((await runSvc(["webhooks", "list", ...loc])).code).toBe(2); // no --account
  const unknown = await runSvc(["webhooks", "deliveries", "wh_aaaaaaaaaaaaaaaaaaaaaaaa", ...loc]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("no webhook wh_aaaaaaaaaaaaaaaaaaaaaaaa");
}, 30_000);
