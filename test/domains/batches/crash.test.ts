/**
 * A batch survives kill -9. Through the compiled binary: `svc serve` runs a 100-line batch on a
 * slow upstream stub (lines in flight at every moment), is SIGKILLed mid-batch, and started again
 * on the same data dir. The batch then completes, and the stub — which counts every call by the
 * line's text — saw no line twice: lines that were in flight at the kill end in the error file as
 * interrupted (never re-sent, never billed), every other line ran exactly once. The per-line costs
 * of the output file sum to the account's ledger debit. `svc batches list` shows it.
 */
import { beforeAll, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI, { toFile } from "openai";
import { silentLogger } from "../../../src/core/log.ts";
import { createAccount } from "../../../src/domains/accounts/service.ts";
import { mintKey } from "../../../src/domains/keys/service.ts";
import { type Context, loadConfig, openContext } from "../../../src/open.ts";
import { runSvc, serveSvc, svcBinary } from "../../support/binary.ts";
import { tempDir } from "../../support/harness.ts";
import { startUpstream } from "../../support/upstream.ts";
import { PRICES, UPSTREAM_KEY, USD } from "../inference/inference-support.ts";
import { chatLine, jsonl } from "./batches-support.ts";

beforeAll(async () => {
  await svcBinary();
}, 120_000);

const LINES = 100;

function withCtx<T>(dir: string, fn: (ctx: Context) => T): T {
  const ctx = openContext(loadConfig({ dataDir: dir }, {}), { log: silentLogger });
  try {
    return fn(ctx);
  } finally {
    ctx.close();
  }
}

test("kill -9 mid-batch, then restart: the batch completes and no line reached the upstream twice", async () => {
  const dir = join(tempDir(), "data");
  expect((await runSvc(["setup", "--yes", "--data-dir", dir, "--replica", "off"])).code).toBe(0);
  const stub = startUpstream({ apiKey: UPSTREAM_KEY });
  appendFileSync(
    join(dir, "svc.toml"),
    [
      "",
      "[batches]",
      "line_concurrency = 4",
      "",
      "[[providers]]",
      'name = "stub"',
      'kind = "openai"',
      `base_url = "${stub.openaiBaseUrl}"`,
      'api_key_env = "SVC_TEST_UPSTREAM_KEY"',
      "",
      "[[models]]",
      'id = "gpt-slow"',
      'provider = "stub"',
      // 300 ms a call: four lines are always in flight when the kill comes.
      'upstream = "stub-gpt@slow"',
      `input_micro_usd_per_mtok = ${PRICES.input}`,
      `output_micro_usd_per_mtok = ${PRICES.output}`,
      "max_output = 1000",
      "",
    ].join("\n"),
  );
  const { accountId, key } = withCtx(dir, (ctx) => {
    const account = createAccount(ctx);
    ctx.ledger.credit(account.id, 100 * USD, { type: "deposit" });
    return { accountId: account.id, key: mintKey(ctx, { accountId: account.id }).key };
  });
  const env = { SVC_TEST_UPSTREAM_KEY: UPSTREAM_KEY };
  const calls = () => stub.requests.filter((r) => r.path === "/v1/chat/completions");

  let served = await serveSvc(dir, { env });
  let openai = new OpenAI({ apiKey: key, baseURL: `${served.url}/v1`, maxRetries: 0 });
  const file = await openai.files.create({ file: await toFile(Buffer.from(jsonl(Array.from({ length: LINES }, (_, i) => chatLine(i, "gpt-slow")))), "in.jsonl"), purpose: "batch" });
  const batch = await openai.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "24h" });
  for (let i = 0; i < 600 && calls().length < 30; i++) await Bun.sleep(10);
  served.proc.kill("SIGKILL");
  await served.proc.exited;
  expect(served.proc.signalCode).toBe("SIGKILL");
  const atKill = calls().length;
  expect(atKill).toBeGreaterThanOrEqual(30);
  expect(atKill).toBeLessThan(LINES);

  served = await serveSvc(dir, { env });
  try {
    openai = new OpenAI({ apiKey: key, baseURL: `${served.url}/v1`, maxRetries: 0 });
    let done = await openai.batches.retrieve(batch.id);
    for (let i = 0; i < 3000 && done.status !== "completed"; i++) {
      await Bun.sleep(20);
      done = await openai.batches.retrieve(batch.id);
    }
    expect(done.status).toBe("completed");
    expect(done.request_counts!.total).toBe(LINES);

    // No line reached the upstream twice.
    const perLine = new Map<string, number>();
    for (const r of calls()) {
      const text = String(r.body.messages[0].content);
      perLine.set(text, (perLine.get(text) ?? 0) + 1);
    }
    expect([...perLine.values()].filter((n) => n > 1)).toEqual([]);

    const read = async (id: string | null | undefined) => (id ? (await (await openai.files.content(id)).text()).split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);
    const out = await read(done.output_file_id);
    const errors = await read(done.error_file_id);
    expect(out.length + errors.length).toBe(LINES);
    expect(new Set([...out, ...errors].map((l) => l.custom_id)).size).toBe(LINES);
    // Only the lines in flight at the kill were cut off (at most line_concurrency of them), and none was billed.
    expect(errors.length).toBeLessThanOrEqual(4);
    expect(errors.every((l) => l.error.code === "interrupted" && l.cost_micro_usd === 0)).toBe(true);
    // Every line that answered ran once; the cut-off ones may or may not have reached the upstream.
    expect(calls().length).toBeGreaterThanOrEqual(out.length);
    expect(calls().length).toBeLessThanOrEqual(LINES);

    const billed = out.reduce((n, l) => n + l.cost_micro_usd, 0);
    expect((done as any).cost_micro_usd).toBe(billed);
    const balance = withCtxRead(dir, accountId);
    expect(100 * USD - balance).toBe(billed);

    const listed = await runSvc(["batches", "list", "--account", accountId, "--data-dir", dir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${batch.id}  completed  /v1/chat/completions  ${out.length}/${LINES} done, ${errors.length} failed  ${billed} µUSD`);
    const json = JSON.parse((await runSvc(["batches", "list", "--account", accountId, "--data-dir", dir, "--json"])).stdout);
    expect(json.batches.map((b: any) => [b.id, b.status])).toEqual([[batch.id, "completed"]]);
  } finally {
    expect(await served.stop()).toBe(0);
  }
}, 120_000);

/** The account's balance, read while svc serves (WAL: readers do not block the writer). */
function withCtxRead(dir: string, accountId: string): number {
  const { Database } = require("bun:sqlite") as typeof import("bun:sqlite");
  const db = new Database(join(dir, "svc.db"), { readonly: true });
  try {
    return db.query<{ b: number }, [string]>("SELECT balance_micro_usd AS b FROM accounts WHERE id = ?").get(accountId)!.b;
  } finally {
    db.close();
  }
}
