/**
 * USDT deposits against a real local chain (anvil, test/support/devnet.ts): GET
 * /v1/billing/methods, POST/GET /v1/billing/deposits, the refresh route and the re-check job.
 * pending → mined → credited exactly once; every refusal with its clear error; concurrent
 * duplicate claims (one process and two contexts on one database) credit once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type Address, type Hash, keccak256, toBytes } from "viem";
import { buildApp } from "../../../src/app.ts";
import type { Config } from "../../../src/config.ts";
import { openContext } from "../../../src/open.ts";
import { ERC20_TRANSFER_TOPIC } from "../../../src/core/chain.ts";
import { toChecksumAddress } from "../../../src/core/eip191.ts";
import { silentLogger } from "../../../src/core/log.ts";
import { addWallet, removeWallet } from "../../../src/domains/auth/wallets.ts";
import { registerDepositJobs } from "../../../src/domains/billing/deposits.ts";
import { DEVNET_CHAIN_ID, type Devnet, startDevnet } from "../../support/devnet.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

const USDT = 1_000_000n; // base units per token (6 decimals)
const TREASURY = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf"; // an address nobody in the tests sends from

let chain: Devnet;
let token: Address;
let otherToken: Address;
let alice: Address;
let bob: Address;
let carol: Address;

beforeAll(async () => {
  chain = await startDevnet();
  [, alice, bob, carol] = chain.accounts as [Address, Address, Address, Address];
  token = await chain.deployToken();
  otherToken = await chain.deployToken();
  for (const who of [alice, bob, carol]) {
    await chain.mint(token, who, 1_000n * USDT);
    await chain.mint(otherToken, who, 1_000n * USDT);
  }
});

afterAll(() => chain?.stop());

let h: Harness;
afterEach(() => h?.close());

type ChainOverrides = Partial<Config["chains"][number]>;

function devnetConfig(c: Config, overrides: ChainOverrides = {}) {
  c.billing.treasury = TREASURY;
  c.chains = [{ name: "devnet", chain_id: DEVNET_CHAIN_ID, rpc_url: chain.url, usdt: token, decimals: 6, confirmations: 3, explorer_url: "https://explorer.test", ...overrides }];
}

function setUp(overrides: ChainOverrides = {}) {
  h = makeHarness({ config: (c) => devnetConfig(c, overrides) });
  const { account, session } = accountWithSession(h.ctx);
  addWallet(h.ctx, account.id, alice);
  return { accountId: account.id, auth: bearer(session.token) };
}

const post = (auth: Record<string, string>, body: unknown) => h.json("POST", "/v1/billing/deposits", { headers: auth, body });
const pay = (from: Address, amount: bigint, to: string = TREASURY, via: Address = token) => chain.transfer(via, from, to as Address, amount);
const balance = (accountId: string) => h.ctx.ledger.balance(accountId).balance_micro_usd;
const credited = () => h.ctx.outbox.since(0).filter((e) => e.type === "deposit_credited");

describe("GET /v1/billing/methods", () => {
  test("public: treasury, chains, USDT contracts, confirmations; never an RPC URL", async () => {
    h = makeHarness({ config: (c) => devnetConfig(c, { rpc_url: "https://rpc.example/v2/secret-provider-key" }) });
    const r = await h.json("GET", "/v1/billing/methods");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      deposits_enabled: true,
      treasury: toChecksumAddress(TREASURY),
      chains: [{ name: "devnet", chain_id: DEVNET_CHAIN_ID, asset: "USDT", token: toChecksumAddress(token), decimals: 6, confirmations: 3, explorer_url: "https://explorer.test" }],
    });
    expect(JSON.stringify(r.body)).not.toContain("secret-provider-key");
    expect(JSON.stringify(r.body)).not.toContain("rpc");
  });

  test("without a treasury deposits are off, and POST says so", async () => {
    h = makeHarness({ config: (c) => devnetConfig(c) });
    h.ctx.config.billing.treasury = "";
    const r = await h.json("GET", "/v1/billing/methods");
    expect(r.body).toMatchObject({ deposits_enabled: false, treasury: null });
    const { session } = accountWithSession(h.ctx);
    const refused = await post(bearer(session.token), { chain: "devnet", tx_hash: `0x${"ab".repeat(32)}` });
    expect(refused.status).toBe(501);
    expect(refused.body.error.type).toBe("not_implemented");
  });
});

describe("POST /v1/billing/deposits", () => {
  test("pending until confirmed, then credited exactly once; re-posting credits nothing", async () => {
    const { accountId, auth } = setUp();
    const hash = await pay(alice, 12_345_678n);

    const first = await post(auth, { chain: "devnet", tx_hash: hash });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      status: "pending",
      chain: "devnet",
      chain_id: DEVNET_CHAIN_ID,
      tx_hash: hash,
      token: toChecksumAddress(token),
      from: toChecksumAddress(alice),
      to: toChecksumAddress(TREASURY),
      amount: "12345678",
      decimals: 6,
      amount_micro_usd: 12_345_678,
      confirmations: 1,
      required_confirmations: 3,
      source: "deposit",
      explorer_url: `https://explorer.test/tx/${hash}`,
      credited_at: null,
    });
    expect(first.body.id).toMatch(/^dep_/);
    expect(balance(accountId)).toBe(0);

    await chain.mine(1);
    const still = await post(auth, { chain: "devnet", tx_hash: hash });
    expect(still.status).toBe(200);
    expect(still.body).toMatchObject({ id: first.body.id, status: "pending", confirmations: 2 });
    expect(balance(accountId)).toBe(0);
    expect(credited()).toHaveLength(0);

    await chain.mine(1);
    const done = await post(auth, { chain: "devnet", tx_hash: hash.toUpperCase().replace("0X", "0x") });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: first.body.id, status: "credited", confirmations: 3 });
    expect(done.body.credited_at).not.toBeNull();
    expect(balance(accountId)).toBe(12_345_678);

    await chain.mine(5);
    const again = await post(auth, { chain: "devnet", tx_hash: hash });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, status: "credited" });
    expect(balance(accountId)).toBe(12_345_678);

    const events = credited();
    expect(events).toHaveLength(1);
    expect(events[0]!.account_id).toBe(accountId);
    expect(events[0]!.payload).toEqual({ deposit_id: first.body.id, chain: "devnet", tx_hash: hash, log_index: first.body.log_index, amount_micro_usd: 12_345_678 });
    const entries = h.ctx.db.query<{ kind: string; amount_micro_usd: number; ref_type: string; ref_id: string }, [string]>("SELECT kind, amount_micro_usd, ref_type, ref_id FROM ledger_entries WHERE account_id = ?").all(accountId);
    expect(entries).toEqual([{ kind: "credit", amount_micro_usd: 12_345_678, ref_type: "deposit", ref_id: first.body.id }]);

    const list = await h.json("GET", "/v1/billing/deposits", { headers: auth });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect(list.body.map((d: { id: string; status: string }) => [d.id, d.status])).toEqual([[first.body.id, "credited"]]);
  });

  test("refused with clear errors: wrong token, wrong recipient, failed tx, unknown tx, unlinked sender", async () => {
    const { accountId, auth } = setUp();
    // Transactions are sent one at a time (each case when its turn comes): anvil mines each as it arrives.
    const cases: [() => Promise<Hash>, number, string, RegExp][] = [
      [() => pay(alice, 5n * USDT, TREASURY, otherToken), 400, "wrong_token", /not chain "devnet"'s USDT/],
      [() => pay(alice, 5n * USDT, bob), 400, "wrong_recipient", /not to the treasury/],
      // More than alice holds: the token reverts, the transaction is mined with status 0.
      [() => chain.transfer(token, alice, TREASURY, 10_000n * USDT, { gas: 100_000n }), 400, "transaction_failed", /failed .*status 0/],
      [async () => `0x${"12".repeat(32)}`, 404, "transaction_not_found", /no transaction/],
      [() => pay(carol, 5n * USDT), 403, "sender_not_linked", /not a wallet linked to this account/],
    ];
    for (const [send, status, type, message] of cases) {
      const r = await post(auth, { chain: "devnet", tx_hash: await send() });
      expect({ type, status: r.status }).toEqual({ type, status });
      expect(r.body.error.type).toBe(type);
      expect(r.body.error.message).toMatch(message);
    }
    expect(balance(accountId)).toBe(0);
    expect(h.ctx.db.query("SELECT count(*) AS n FROM deposits").get()).toEqual({ n: 0 });
  });

  test("a chain whose node is on another chain id is refused as the wrong chain", async () => {
    const { accountId, auth } = setUp({ chain_id: 1 });
    const r = await post(auth, { chain: "devnet", tx_hash: await pay(alice, USDT) });
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({ type: "wrong_chain", expected_chain_id: 1, node_chain_id: DEVNET_CHAIN_ID });
    expect(balance(accountId)).toBe(0);
  });

  test("an unreachable node is 503, and the RPC URL (which may hold a key) never appears", async () => {
    const { auth } = setUp({ rpc_url: "http://127.0.0.1:1/v2/secret-provider-key" });
    const r = await post(auth, { chain: "devnet", tx_hash: `0x${"34".repeat(32)}` });
    expect(r.status).toBe(503);
    expect(r.body.error.type).toBe("chain_unavailable");
    expect(r.headers.get("retry-after")).toBe("30");
    expect(JSON.stringify(r.body)).not.toContain("secret-provider-key");
    expect(JSON.stringify(r.body)).not.toContain("127.0.0.1:1");
  });

  test("another account cannot claim a transfer already claimed, and is not told whose it is", async () => {
    const { accountId, auth } = setUp({ confirmations: 1 });
    const hash = await pay(alice, 7n * USDT);
    expect((await post(auth, { chain: "devnet", tx_hash: hash })).body.status).toBe("credited");
    // alice's wallet moves to another account, which then posts the same transaction.
    addWallet(h.ctx, accountId, bob);
    removeWallet(h.ctx, accountId, alice);
    const other = accountWithSession(h.ctx);
    addWallet(h.ctx, other.account.id, alice);
    const r = await post(bearer(other.session.token), { chain: "devnet", tx_hash: hash });
    expect(r.status).toBe(409);
    expect(r.body.error.type).toBe("deposit_already_claimed");
    expect(JSON.stringify(r.body)).not.toContain(accountId);
    expect(balance(other.account.id)).toBe(0);
    expect(balance(accountId)).toBe(7_000_000);
    expect((await h.json("GET", "/v1/billing/deposits", { headers: bearer(other.session.token) })).body).toEqual([]);
  });

  test("bad input names the field", async () => {
    const { auth } = setUp();
    const cases: [unknown, string][] = [
      [{ tx_hash: `0x${"ab".repeat(32)}` }, "chain"],
      [{ chain: "devnet" }, "tx_hash"],
      [{ chain: "devnet", tx_hash: "0x1234" }, "tx_hash"],
      [{ chain: "devnet", tx_hash: 42 }, "tx_hash"],
      [{ chain: "nope", tx_hash: `0x${"ab".repeat(32)}` }, "chain"],
      [{ chain: "devnet", tx_hash: `0x${"ab".repeat(32)}`, colour: "red" }, "colour"],
    ];
    for (const [body, param] of cases) {
      const r = await post(auth, body);
      expect({ param, status: r.status }).toEqual({ param, status: 400 });
      expect(r.body.error.param).toBe(param);
    }
    const unknownChain = await post(auth, { chain: "nope", tx_hash: `0x${"ab".repeat(32)}` });
    expect(unknownChain.body.error.message).toContain('"devnet"');
  });

  test("session only", async () => {
    setUp();
    expect((await h.json("GET", "/v1/billing/deposits")).status).toBe(401);
    expect((await post({}, { chain: "devnet", tx_hash: `0x${"ab".repeat(32)}` })).status).toBe(401);
    expect((await h.json("POST", "/v1/billing/deposits/refresh")).status).toBe(401);
  });
});

describe("exactly once under concurrency", () => {
  test("duplicate POSTs at once, through one app and through a second context on the same database", async () => {
    const { accountId, auth } = setUp({ confirmations: 2 });
    const hash = await pay(alice, 3n * USDT);
    await chain.mine(1);
    const second = openContext(h.ctx.config, { clock: h.clock, log: silentLogger });
    const secondApp = buildApp(second);
    const viaSecond = () =>
      secondApp
        .handle(new Request("http://svc.test/v1/billing/deposits", { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ chain: "devnet", tx_hash: hash }) }))
        .then(async (r) => ({ status: r.status, body: (await r.json()) as { id: string; status: string } }));
    try {
      const results = await Promise.all([...Array.from({ length: 8 }, () => post(auth, { chain: "devnet", tx_hash: hash })), ...Array.from({ length: 8 }, viaSecond)]);
      expect(results.map((r) => r.status).sort()).toEqual([...Array(15).fill(200), 201].sort());
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
      expect(results.every((r) => r.body.status === "credited")).toBe(true);
      expect(balance(accountId)).toBe(3_000_000);
      expect(credited()).toHaveLength(1);
      expect(h.ctx.db.query("SELECT count(*) AS n FROM ledger_entries WHERE kind = 'credit'").get()).toEqual({ n: 1 });
    } finally {
      second.close();
    }
  });

  test("a pending deposit confirmed by POST, refresh and the job at once is credited once", async () => {
    const { accountId, auth } = setUp();
    const hash = await pay(alice, 2n * USDT);
    expect((await post(auth, { chain: "devnet", tx_hash: hash })).body.status).toBe("pending");
    await chain.mine(2);
    registerDepositJobs(h.ctx);
    await Promise.all([post(auth, { chain: "devnet", tx_hash: hash }), h.json("POST", "/v1/billing/deposits/refresh", { headers: auth }), h.ctx.scheduler.runDue(), post(auth, { chain: "devnet", tx_hash: hash })]);
    expect(balance(accountId)).toBe(2_000_000);
    expect(credited()).toHaveLength(1);
  });
});

describe("re-checking pending deposits", () => {
  test("POST /v1/billing/deposits/refresh credits what has its confirmations now", async () => {
    const { accountId, auth } = setUp();
    const early = await pay(alice, 4n * USDT); // block B
    const late = await pay(alice, 6n * USDT); // block B + 1: early has 2 confirmations, late 1
    expect((await post(auth, { chain: "devnet", tx_hash: early })).body.status).toBe("pending");
    expect((await post(auth, { chain: "devnet", tx_hash: late })).body.status).toBe("pending");

    const nothingYet = await h.json("POST", "/v1/billing/deposits/refresh", { headers: auth });
    expect(nothingYet.status).toBe(200);
    expect(nothingYet.body).toMatchObject({ checked: 2, credited: 0 });

    await chain.mine(1); // early: 3 confirmations; late: 2
    const one = await h.json("POST", "/v1/billing/deposits/refresh", { headers: auth });
    expect(one.body).toMatchObject({ checked: 2, credited: 1 });
    expect(balance(accountId)).toBe(4_000_000);

    await chain.mine(1);
    const both = await h.json("POST", "/v1/billing/deposits/refresh", { headers: auth });
    expect(both.body).toMatchObject({ checked: 1, credited: 1 });
    expect(balance(accountId)).toBe(10_000_000);
    const list = (await h.json("GET", "/v1/billing/deposits", { headers: auth })).body as { tx_hash: string; status: string }[];
    expect(list.map((d) => [d.tx_hash, d.status])).toEqual([
      [late, "credited"],
      [early, "credited"],
    ]);
    expect(credited()).toHaveLength(2);
  });

  test("the scheduler's recurring job credits pending deposits after blocks are mined", async () => {
    const { accountId, auth } = setUp();
    const hash = await pay(alice, 9n * USDT);
    expect((await post(auth, { chain: "devnet", tx_hash: hash })).body.status).toBe("pending");
    registerDepositJobs(h.ctx);
    await h.ctx.scheduler.runDue();
    expect(balance(accountId)).toBe(0);

    await chain.mine(2);
    await h.ctx.scheduler.runDue(); // not due yet: the job runs every 30 s
    expect(balance(accountId)).toBe(0);
    h.clock.advance(30_000);
    await h.ctx.scheduler.runDue();
    expect(balance(accountId)).toBe(9_000_000);
    expect(credited()).toHaveLength(1);
    const [row] = (await h.json("GET", "/v1/billing/deposits", { headers: auth })).body;
    expect(row).toMatchObject({ status: "credited", confirmations: 3, last_error: null });
  });

  test("a pending deposit whose chain is no longer reachable stays pending and says why", async () => {
    const { accountId, auth } = setUp();
    const hash = await pay(alice, USDT);
    expect((await post(auth, { chain: "devnet", tx_hash: hash })).body.status).toBe("pending");
    h.ctx.config.chains[0]!.rpc_url = "http://127.0.0.1:1/secret-provider-key";
    const r = await h.json("POST", "/v1/billing/deposits/refresh", { headers: auth });
    expect(r.body).toMatchObject({ checked: 1, credited: 0 });
    expect(r.body.deposits[0].status).toBe("pending");
    expect(r.body.deposits[0].last_error).toContain("cannot be checked right now");
    expect(JSON.stringify(r.body)).not.toContain("secret-provider-key");
    expect(balance(accountId)).toBe(0);
  });
});

describe("chain client", () => {
  test("the Transfer topic is keccak256 of the event signature", () => {
    expect(ERC20_TRANSFER_TOPIC).toBe(keccak256(toBytes("Transfer(address,address,uint256)")));
  });
});
