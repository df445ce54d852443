/**
 * Money survives kill -9 under load. Through the compiled binary: `svc serve` meters chat
 * completions for one API key against a stand-in upstream (test/support/money-crash-load.ts),
 * a quarter of them streamed, so both settle paths run — the group-committed settle of a
 * non-streamed reply (Transactions.grouped) and the stream's own settle in its last callback.
 * The account holds credit for about 60% of the calls the load attempts, so a broken guarantee
 * would show as overspending. 32 fetch loops drive the load; after a random 150–600 ms (or
 * sooner, once the phase's request budget is all sent, so the kill always finds calls in
 * flight) the server is SIGKILLed, restarted on the same data dir, and the load goes on; four
 * times, then the rest of the load runs to its end and svc stops cleanly.
 *
 * The calls reserve in memory (svc serve holds the money lease alone: docs/money.md), so a kill
 * can lose reservations and nothing else. Then, from the database: every settle left one usage
 * event, one receipt, one receipt_minted outbox row and one debit entry, with the same cost; the
 * debits add up to the usage and the balance to the credit minus the usage; nothing went below
 * zero at any entry; nothing is held — no hold was ever written, so the killed calls' reservations
 * left no trace and there is nothing for the sweep to release; and every 200 the load saw names a
 * receipt that is in the table, at the cost the client was told. Randomness only moves the kills;
 * no assertion depends on where they land.
 */
import { beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/core/log.ts";
import { DEFAULT_HOLD_TTL_MS } from "../../src/core/meter.ts";
import { writeConfigFile } from "../../src/config.ts";
import { loadConfig, openContext } from "../../src/open.ts";
import { runSvc, serveSvc, svcBinary } from "../support/binary.ts";
import { tempDir } from "../support/harness.ts";
import { Load, startStubUpstream, USAGE } from "../support/money-crash-load.ts";

beforeAll(async () => {
  await svcBinary();
}, 120_000);

const KILLS = 4;
const CONCURRENCY = 32;
/** The most a phase that ends in a kill may send (it is killed sooner when its random delay passes first); the last phase sends the rest of TOTAL. */
const PHASE_CAP = 300;
const TOTAL = 3000;
const MODEL = "crash-model";
const PRICE = { input: 1_000_000, output: 100_000_000 }; // µUSD per million tokens: 1 and 100 µUSD a token
const cost = (u: { prompt_tokens: number; completion_tokens: number }) => (u.prompt_tokens * PRICE.input + u.completion_tokens * PRICE.output) / 1_000_000;
const COST = { json: cost(USAGE.json), stream: cost(USAGE.stream) };
/** Credit for 60% of the attempts at the cheaper price: the load cannot all be served. */
const CREDIT = Math.floor(0.6 * TOTAL) * COST.json;

async function cli(dir: string, args: string[]): Promise<string> {
  const r = await runSvc([...args, "--data-dir", dir]);
  if (r.code !== 0) throw new Error(`svc ${args.join(" ")} failed (exit ${r.code}): ${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Account, limited credit, key, the stub as provider, a priced model; the breaker off (the load's spend per minute is the point). */
async function prepare(dir: string, upstream: string): Promise<{ accountId: string; key: string; keyId: string }> {
  expect((await runSvc(["setup", "--yes", "--data-dir", dir, "--replica", "off"])).code).toBe(0);
  const accountId = JSON.parse(await cli(dir, ["accounts", "create", "--wallet", "0x00000000000000000000000000000000000c4a54", "--json"])).id as string;
  await cli(dir, ["admin", "credit", "grant", "--account", accountId, "--micro-usd", String(CREDIT), "--reason", "money crash test"]);
  const minted = JSON.parse(await cli(dir, ["keys", "mint", "--account", accountId, "--scopes", "inference", "--json"]));
  await cli(dir, ["providers", "add", "stub", "--kind", "openai", "--base-url", upstream, "--timeout-secs", "30"]);
  await cli(dir, ["models", "add", MODEL, "--provider", "stub", "--upstream", "stub-model", "--input-micro-usd-per-mtok", String(PRICE.input), "--output-micro-usd-per-mtok", String(PRICE.output), "--max-output", "1024"]);
  writeConfigFile(join(dir, "svc.toml"), { keys: { breaker_micro_usd_per_minute: 0 } });
  return { accountId, key: minted.key as string, keyId: minted.id as string };
}

/** SIGKILL by PID and wait (bounded) for it to be gone. */
async function killHard(proc: ReturnType<typeof Bun.spawn>): Promise<void> {
  process.kill(proc.pid, "SIGKILL");
  await Promise.race([proc.exited, Bun.sleep(10_000)]);
  expect(proc.signalCode).toBe("SIGKILL");
}

test("kill -9 under load, repeated: every charge has its receipt, the ledger adds up, a kill loses reservations and nothing else", async () => {
  const dir = join(tempDir("svc-money-crash"), "data");
  const stub = startStubUpstream();
  const { accountId, key, keyId } = await prepare(dir, stub.url);

  const load = new Load(key, MODEL, CONCURRENCY);
  const delays: number[] = [];
  let inFlightAtKills = 0;
  try {
    for (let k = 0; k < KILLS; k++) {
      // Alternate receipt signing on a thread (SVC_SIGN_WORKERS=1) and on the event loop: both paths die mid-call.
      const served = await serveSvc(dir, { env: { SVC_SIGN_WORKERS: String(k % 2) } });
      const dispatched = load.open(served.url, PHASE_CAP);
      const delay = 150 + Math.floor(Math.random() * 450);
      // The kill comes after the delay, or as soon as the phase's budget is all sent, so it always finds calls in flight.
      const at = Date.now();
      await Promise.race([Bun.sleep(delay), dispatched]);
      delays.push(Date.now() - at);
      // No request starts against a server about to die: a transport error is a request in flight at the kill.
      load.close();
      inFlightAtKills += load.pending;
      await killHard(served.proc);
    }
    const served = await serveSvc(dir, { env: { SVC_SIGN_WORKERS: "1" } });
    try {
      await load.finish(served.url, TOTAL - load.tally.sent);
    } finally {
      expect(await served.stop()).toBe(0);
    }
  } finally {
    load.close();
    stub.stop();
  }

  const t = load.tally;
  expect(t.unexpected).toEqual([]);
  expect(t.sent).toBe(TOTAL);
  expect(t.ok + t.insufficient + t.errors).toBe(TOTAL);
  // At most every loop's one request was in flight at each kill.
  expect(t.errors).toBeLessThanOrEqual(KILLS * CONCURRENCY);
  // The credit covers at most 60% of the load: the rest was refused (overspending would have answered it).
  expect(t.insufficient).toBeGreaterThan(0);

  const db = new Database(join(dir, "svc.db"), { readonly: true });
  const one = <T>(sql: string, ...params: (string | number)[]) => db.query<T, (string | number)[]>(sql).get(...params)!;
  const all = <T>(sql: string, ...params: (string | number)[]) => db.query<T, (string | number)[]>(sql).all(...params);
  const n = (sql: string, ...params: (string | number)[]) => one<{ n: number | null }>(sql, ...params).n ?? 0;
  const account = () => one<{ balance_micro_usd: number; held_micro_usd: number }>("SELECT balance_micro_usd, held_micro_usd FROM accounts WHERE id = ?", accountId);
  let receipts = 0;
  let balanceBefore = 0;
  try {
    // Every settled charge has its receipt, and every receipt its charge, at the same cost.
    const usage = n("SELECT count(*) AS n FROM usage_events WHERE account_id = ?", accountId);
    receipts = n("SELECT count(*) AS n FROM receipts WHERE account_id = ?", accountId);
    expect(receipts).toBe(usage);
    expect(n("SELECT count(*) AS n FROM usage_events u LEFT JOIN receipts r ON r.usage_event_id = u.id WHERE u.account_id = ? AND r.id IS NULL", accountId)).toBe(0);
    expect(
      n(
        "SELECT count(*) AS n FROM receipts r LEFT JOIN usage_events u ON u.id = r.usage_event_id WHERE r.account_id = ? AND (u.id IS NULL OR u.cost_micro_usd != r.cost_micro_usd OR u.account_id != r.account_id)",
        accountId,
      ),
    ).toBe(0);
    expect(n("SELECT count(DISTINCT usage_event_id) AS n FROM receipts WHERE account_id = ?", accountId)).toBe(receipts);
    // Both settle paths ran, each billing its own usage.
    const byPath = all<{ stream: number; n: number; cost: number }>(
      "SELECT json_extract(units, '$.stream') AS stream, count(*) AS n, min(cost_micro_usd) AS cost FROM usage_events WHERE account_id = ? GROUP BY 1 ORDER BY 1",
      accountId,
    );
    expect(byPath.map((r) => [r.stream, r.cost])).toEqual([
      [0, COST.json],
      [1, COST.stream],
    ]);
    expect(n("SELECT count(*) AS n FROM usage_events WHERE account_id = ? AND cost_micro_usd != CASE json_extract(units, '$.stream') WHEN 1 THEN ? ELSE ? END", accountId, COST.stream, COST.json)).toBe(0);

    // The ledger: one debit per usage event, of exactly its cost, and nothing else was debited.
    const spent = n("SELECT sum(cost_micro_usd) AS n FROM usage_events WHERE account_id = ?", accountId);
    expect(n("SELECT sum(amount_micro_usd) AS n FROM ledger_entries WHERE account_id = ? AND kind = 'debit'", accountId)).toBe(spent);
    expect(n("SELECT count(*) AS n FROM ledger_entries WHERE account_id = ? AND kind = 'debit'", accountId)).toBe(usage);
    // Reserved in memory: no hold row or hold entry was ever written, so a kill left none behind.
    expect(n("SELECT count(*) AS n FROM holds WHERE account_id = ?", accountId)).toBe(0);
    expect(n("SELECT count(*) AS n FROM ledger_entries WHERE account_id = ? AND kind IN ('hold', 'release')", accountId)).toBe(0);
    expect(n("SELECT count(*) AS n FROM usage_events WHERE account_id = ? AND hold_id IS NOT NULL", accountId)).toBe(0);
    const credited = n("SELECT sum(amount_micro_usd) AS n FROM ledger_entries WHERE account_id = ? AND kind IN ('credit', 'adjustment')", accountId);
    expect(credited).toBe(CREDIT);
    const acct = account();
    expect(acct).toEqual({ balance_micro_usd: credited - spent, held_micro_usd: 0 });
    const last = one<{ balance_after_micro_usd: number; held_after_micro_usd: number }>(
      "SELECT balance_after_micro_usd, held_after_micro_usd FROM ledger_entries WHERE account_id = ? ORDER BY seq DESC LIMIT 1",
      accountId,
    );
    expect([last.balance_after_micro_usd, last.held_after_micro_usd]).toEqual([acct.balance_micro_usd, acct.held_micro_usd]);
    // Never below zero, at any entry: balance and spendable (balance − held).
    expect(n("SELECT count(*) AS n FROM ledger_entries WHERE account_id = ? AND (balance_after_micro_usd < 0 OR balance_after_micro_usd - held_after_micro_usd < 0)", accountId)).toBe(0);

    // The key's counters agree with the ledger; nothing is held for it either.
    expect(n("SELECT spent_carried_micro_usd AS n FROM api_keys WHERE id = ?", keyId)).toBe(0);
    expect(n("SELECT sum(spent_micro_usd) AS n FROM key_spend WHERE key_id = ?", keyId)).toBe(spent);
    expect(n("SELECT sum(held_micro_usd) AS n FROM key_spend WHERE key_id = ?", keyId)).toBe(0);
    balanceBefore = acct.balance_micro_usd;

    // Every 200 the load saw names a receipt that committed, at the cost the client was told.
    const found = new Map(all<{ id: string; cost_micro_usd: number }>("SELECT id, cost_micro_usd FROM receipts WHERE account_id = ?", accountId).map((r) => [r.id, r.cost_micro_usd]));
    const missing = t.answered.filter((a) => found.get(a.receiptId) !== a.cost);
    expect(missing).toEqual([]);
    expect(new Set(t.answered.map((a) => a.receiptId)).size).toBe(t.answered.length);
    expect(t.answered.length).toBe(t.ok);
    expect(receipts).toBeGreaterThanOrEqual(t.ok);

    // One receipt_minted outbox row per receipt, naming it and its cost (the compact stored payload).
    const minted = all<{ receipt_id: string; cost: number }>(
      "SELECT json_extract(payload, '$.receipt_id') AS receipt_id, json_extract(payload, '$.cost_micro_usd') AS cost FROM outbox_events WHERE type = 'receipt_minted' AND account_id = ?",
      accountId,
    );
    expect(minted.length).toBe(receipts);
    expect(new Set(minted.map((m) => m.receipt_id)).size).toBe(receipts);
    expect(minted.filter((m) => found.get(m.receipt_id) !== m.cost)).toEqual([]);
  } finally {
    db.close();
  }

  // The sweep serve runs every minute, with the clock past every hold's TTL: nothing was left to release.
  const ctx = openContext(loadConfig({ dataDir: dir }, {}), { log: silentLogger, clock: new ManualClock(Date.now() + DEFAULT_HOLD_TTL_MS + 3_600_000) });
  try {
    expect(ctx.meter.sweep()).toBe(0);
    expect(ctx.ledger.balance(accountId)).toEqual({ balance_micro_usd: balanceBefore, held_micro_usd: 0, spendable_micro_usd: balanceBefore });
  } finally {
    ctx.close();
  }

  console.log(
    `[money-crash] ${KILLS} kill -9s (after ${delays.join("/")} ms; ${inFlightAtKills} requests in flight at the kills), ${t.sent} requests sent: ` +
      `${t.ok} 200s (${t.okStream} streamed), ${t.insufficient} 402s, ${t.errors} errors; ${receipts} receipts (${receipts - t.ok} settled for calls killed before answering); ` +
      `upstream saw ${stub.calls()} calls`,
  );
}, 120_000);
