/**
 * The money lease between processes, through the compiled binary (docs/money.md): `svc serve`
 * keeps its calls' reservations in memory; an operator's `svc admin credit debit` beside it
 * makes the server yield — the reservation of a call in flight is written as a durable hold the
 * CLI sees, so the charge can never take credit the call holds — and the call still completes
 * with its receipt; once the command has exited the server spends from memory again. svc doctor
 * says who holds the money path.
 */
import { beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { writeConfigFile } from "../../src/config.ts";
import { runSvc, serveSvc, svcBinary } from "../support/binary.ts";
import { tempDir } from "../support/harness.ts";
import { startStubUpstream, USAGE } from "../support/money-crash-load.ts";

beforeAll(async () => {
  await svcBinary();
}, 120_000);

const MODEL = "lease-model";
const CREDIT = 10_000_000;
const PRICE = { input: 1_000_000, output: 100_000_000 }; // µUSD per million tokens
const MAX_OUTPUT = 1_000;

async function cli(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runSvc([...args, "--data-dir", dir]);
}

test("svc admin credit debit beside a serving svc: the server yields, the call in flight keeps its credit and completes with its receipt", async () => {
  const dir = join(tempDir("svc-money-lease"), "data");
  const stub = startStubUpstream({ jsonDelayMs: 1_500 });
  expect((await runSvc(["setup", "--yes", "--data-dir", dir, "--replica", "off"])).code).toBe(0);
  const accountId = JSON.parse((await cli(dir, ["accounts", "create", "--wallet", "0x00000000000000000000000000000000001ea5e0", "--json"])).stdout).id as string;
  expect((await cli(dir, ["admin", "credit", "grant", "--account", accountId, "--micro-usd", String(CREDIT), "--reason", "lease test"])).code).toBe(0);
  const key = JSON.parse((await cli(dir, ["keys", "mint", "--account", accountId, "--scopes", "inference", "--json"])).stdout).key as string;
  expect((await cli(dir, ["providers", "add", "stub", "--kind", "openai", "--base-url", stub.url, "--timeout-secs", "30"])).code).toBe(0);
  const models = ["models", "add", MODEL, "--provider", "stub", "--upstream", "stub-model", "--input-micro-usd-per-mtok", String(PRICE.input), "--output-micro-usd-per-mtok", String(PRICE.output), "--max-output", String(MAX_OUTPUT)];
  expect((await cli(dir, models)).code).toBe(0);
  writeConfigFile(join(dir, "svc.toml"), { keys: { breaker_micro_usd_per_minute: 0 } });

  // svc doctor says who spends: nobody yet, then the server keeping its reservations in memory.
  expect((await cli(dir, ["doctor"])).stdout).toContain("no process spends now");
  const served = await serveSvc(dir);
  expect((await cli(dir, ["doctor"])).stdout).toContain(`pid ${served.proc.pid} keeps its reservations in memory`);
  const db = new Database(join(dir, "svc.db"), { readonly: true });
  const holds = () => db.query<{ amount_micro_usd: number; status: string }, [string]>("SELECT amount_micro_usd, status FROM holds WHERE account_id = ?").all(accountId);
  const call = () =>
    fetch(`${served.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hello" }], max_tokens: MAX_OUTPUT }),
    });
  try {
    const inFlight = call();
    for (let i = 0; i < 200 && stub.calls() < 1; i++) await Bun.sleep(10);
    expect(stub.calls()).toBe(1);
    // Reserved in the server's memory: nothing written yet.
    expect(holds()).toEqual([]);

    // Taking all the credit is refused: the server yielded, and its call's reservation is now a hold the CLI sees.
    const all = await cli(dir, ["admin", "credit", "debit", "--account", accountId, "--micro-usd", String(CREDIT), "--reason", "too much"]);
    expect(all.code).toBe(1);
    expect(all.stderr).toContain("spendable credit does not cover");
    const [held] = holds();
    expect(held!.status).toBe("open");
    const reserved = held!.amount_micro_usd;
    expect(reserved).toBeGreaterThan(0);
    // Exactly what is spendable can be taken.
    const taken = await cli(dir, ["admin", "credit", "debit", "--account", accountId, "--micro-usd", String(CREDIT - reserved), "--reason", "correction"]);
    expect(taken.code).toBe(0);

    const res = await inFlight;
    expect(res.status).toBe(200);
    const cost = Number(res.headers.get("x-svc-cost-micro-usd"));
    expect(cost).toBe((USAGE.json.prompt_tokens * PRICE.input + USAGE.json.completion_tokens * PRICE.output) / 1_000_000);
    await res.arrayBuffer();
    // It settled through the hold it was given.
    expect(holds()).toEqual([{ amount_micro_usd: reserved, status: "captured" }]);
    const balance = db.query<{ b: number; h: number }, [string]>("SELECT balance_micro_usd AS b, held_micro_usd AS h FROM accounts WHERE id = ?").get(accountId)!;
    expect(balance).toEqual({ b: reserved - cost, h: 0 });

    // The commands have exited: the server spends from memory again (no hold written for the next call).
    // A grant is money in: it needs no lease, so the server does not yield for it.
    expect((await cli(dir, ["admin", "credit", "grant", "--account", accountId, "--micro-usd", String(CREDIT), "--reason", "top up"])).code).toBe(0);
    await Bun.sleep(1_100);
    const next = await call();
    expect(next.status).toBe(200);
    await next.arrayBuffer();
    expect(holds()).toHaveLength(1);
    expect(db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM receipts WHERE account_id = ?").get(accountId)!.n).toBe(2);
  } finally {
    db.close();
    expect(await served.stop()).toBe(0);
    stub.stop();
  }
}, 60_000);
