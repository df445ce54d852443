/**
 * Launches on a real local chain (anvil, test/support/devnet.ts), TestUSDT deployed as the
 * launch's ERC-20 (and a second one as the chain's USDT for paid checks): bind once then 409;
 * a check VERIFIED through the stand-in custodian against the on-chain supply; mint
 * authorizations recovered with viem's EIP-712 recovery, refused when the reserves fall short;
 * redemptions of a burn (a Transfer to 0x0), idempotent per burn log; the on-chain view with the
 * node silent → reachable:false; the public check's cooldown (429) and its x402 price (402).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type Address, getAddress, type Hex, recoverMessageAddress, recoverTypedDataAddress, zeroAddress } from "viem";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { type Devnet, startDevnet } from "../../support/devnet.ts";
import type { Harness } from "../../support/harness.ts";
import { devnetChain, TREASURY } from "../pay/pay-support.ts";
import { call, createLaunch, type Custodian, launchesHarness, startCustodian, tenant } from "./launches-support.ts";

const UNIT = 1_000_000n; // 6 decimals
let chain: Devnet;
let custodian: Custodian;
let token: Address;
let usdt: Address;
let h: Harness;
let silent: ReturnType<typeof Bun.serve> | null = null;

beforeAll(async () => {
  [chain, custodian] = await Promise.all([startDevnet(), Promise.resolve(startCustodian())]);
  // Checksummed, as svc shows contract addresses in signed documents and terms.
  token = getAddress(await chain.deployToken());
  usdt = getAddress(await chain.deployToken());
});
afterAll(async () => {
  custodian.stop();
  silent?.stop(true);
  await chain.stop();
});
afterEach(() => {
  h?.close();
  custodian.figure = "1500";
  custodian.up = true;
});

const world = (extra: Parameters<typeof launchesHarness>[0] = () => {}) =>
  launchesHarness((c) => {
    devnetChain(chain, usdt, { confirmations: 1 })(c);
    extra(c);
  });

const typed = (a: any) => ({
  domain: a.domain,
  types: a.types,
  primaryType: a.primary_type,
  message: Object.fromEntries(Object.entries(a.message).map(([k, v]) => [k, a.types[a.primary_type].find((f: any) => f.name === k).type === "uint256" ? BigInt(v as string) : v])),
  signature: a.signature as Hex,
});

describe("a launch on chain", () => {
  test("binds its token once (409 already_bound), is VERIFIED against the supply, and mints only within its reserves", async () => {
    h = world();
    const me = tenant(h);
    const launch = await createLaunch(h, me, custodian);
    const holder = chain.accounts[1]!;
    // Whatever earlier tests minted, the supply now is what the check must compare.
    await chain.mint(token, holder, 1000n * UNIT);
    const supply = (await chain.client.readContract({ address: token, abi: (await import("../../support/devnet.ts")).TEST_USDT_ABI, functionName: "totalSupply" })) as bigint;

    const notErc20 = await call(h, me, "POST", `/v1/launches/${launch.id}/token`, { chain: "devnet", token: holder });
    expect([notErc20.status, notErc20.body.error.type]).toEqual([422, "not_an_erc20"]);
    const bound = await call(h, me, "POST", `/v1/launches/${launch.id}/token`, { chain: "devnet", token });
    expect(bound.status).toBe(200);
    expect(bound.body.token).toMatchObject({ chain: "devnet", chain_id: 31337, address: token.toLowerCase() });
    for (const again of [token, usdt]) {
      const r = await call(h, me, "POST", `/v1/launches/${launch.id}/token`, { chain: "devnet", token: again });
      expect([r.status, r.body.error.type]).toEqual([409, "already_bound"]);
    }

    // Before any check: not eligible, and the rail says why.
    const early = await call(h, me, "POST", `/v1/launches/${launch.id}/mint-authorizations`, { amount: String(UNIT), to: holder });
    expect([early.status, early.body.error.type]).toEqual([409, "check_not_verified"]);

    custodian.figure = (supply / UNIT + 500n).toString();
    const check = await call(h, me, "POST", `/v1/launches/${launch.id}/check`);
    expect(check.body.check).toMatchObject({ status: "VERIFIED", supply_units: supply.toString(), reserves_units: (supply + 500n * UNIT).toString(), token: token.toLowerCase(), chain_id: 31337 });
    expect(check.body.check.block_number).toBeGreaterThan(0);

    const detail = await call(h, me, "GET", `/v1/launches/${launch.id}`);
    expect(detail.body.mint_eligibility).toMatchObject({ eligible: true, reasons: [], token_bound: true, paused: null, chain_reachable: true, headroom_units: (500n * UNIT).toString(), outstanding_units: "0" });

    const to = chain.accounts[2]!;
    const auth = await call(h, me, "POST", `/v1/launches/${launch.id}/mint-authorizations`, { amount: (300n * UNIT).toString(), to });
    expect(auth.status).toBe(201);
    expect(auth.body).toMatchObject({ launch_id: launch.id, check_seq: 1, primary_type: "MintAuthorization", message: { launch: launch.id, to, amount: (300n * UNIT).toString(), nonce: "1" } });
    expect(auth.body.domain).toEqual({ name: "svc", version: "1", chainId: 31337, verifyingContract: token });
    expect(await recoverTypedDataAddress(typed(auth.body))).toBe(launch.verdict_signer);

    // The unexpired authorization spends headroom: 200 more would exceed the 500 the reserves cover.
    const short = await call(h, me, "POST", `/v1/launches/${launch.id}/mint-authorizations`, { amount: (201n * UNIT).toString(), to });
    expect([short.status, short.body.error.type, short.body.error.headroom_units]).toEqual([409, "reserves_short", (200n * UNIT).toString()]);
    const second = await call(h, me, "POST", `/v1/launches/${launch.id}/mint-authorizations`, { amount: (200n * UNIT).toString(), to });
    expect([second.status, second.body.message.nonce]).toEqual([201, "2"]);

    // Holdings fall short of the supply: DISCREPANCY, and the rail refuses.
    custodian.figure = "1";
    const under = await call(h, me, "POST", `/v1/launches/${launch.id}/check`);
    expect(under.body.check).toMatchObject({ status: "DISCREPANCY", reserves_units: UNIT.toString() });
    expect(under.body.check.reason).toContain("short by");
    const refused = await call(h, me, "POST", `/v1/launches/${launch.id}/mint-authorizations`, { amount: "1", to });
    expect([refused.status, refused.body.error.type]).toEqual([409, "check_not_verified"]);

    const actions = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/actions`);
    expect(actions.body.actions.map((a: any) => a.kind)).toEqual(["check", "mint_authorization", "mint_authorization", "check", "token_bound", "created"]);
    const att = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/attestation`);
    expect(att.body.attestation.domain).toEqual({ name: "svc", version: "1", chainId: 31337, verifyingContract: token });
    expect(await recoverTypedDataAddress(typed(att.body.attestation))).toBe(launch.verdict_signer);
  });

  test("a burn becomes a signed redemption receipt, the same one however often it is posted", async () => {
    h = world();
    const me = tenant(h);
    const launch = await createLaunch(h, me, custodian);
    await call(h, me, "POST", `/v1/launches/${launch.id}/token`, { chain: "devnet", token });
    const holder = chain.accounts[3]!;
    await chain.mint(token, holder, 50n * UNIT);
    const burn = await chain.transfer(token, holder, zeroAddress, 10n * UNIT);

    const first = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/redemptions`, { tx_hash: burn });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ launch_id: launch.id, tx_hash: burn.toLowerCase(), redeemer: holder, amount_units: (10n * UNIT).toString() });
    expect(await recoverMessageAddress({ message: first.body.statement, signature: first.body.signature })).toBe(launch.verdict_signer);
    expect(first.body.payload).toMatchObject({ type: "launch-redemption", redemption_id: first.body.id, redeemer: holder, amount_units: (10n * UNIT).toString(), spec_digest: launch.digest });

    const again = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/redemptions`, { tx_hash: burn.toUpperCase().replace("0X", "0x"), log_index: first.body.log_index });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const list = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/redemptions`);
    expect(list.body).toMatchObject({ launch_id: launch.id, slug: launch.slug });
    expect(list.body.redemptions.map((r: any) => r.id)).toEqual([first.body.id]);

    // A transfer that burns nothing is not a redemption.
    const plain = await chain.transfer(token, holder, chain.accounts[4]!, UNIT);
    const no = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/redemptions`, { tx_hash: plain });
    expect([no.status, no.body.error.type]).toEqual([422, "no_burn"]);
  });

  test("the on-chain view reads the contract live; a silent node answers reachable:false", async () => {
    h = world();
    const me = tenant(h);
    const launch = await createLaunch(h, me, custodian);
    const unbound = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/onchain`);
    expect(unbound.body).toMatchObject({ bound: false, reachable: null, total_supply_units: null });
    await call(h, me, "POST", `/v1/launches/${launch.id}/token`, { chain: "devnet", token });
    const live = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/onchain`);
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ bound: true, reachable: true, decimals: 6, paused: null, token: token.toLowerCase(), reason: null });
    expect(BigInt(live.body.total_supply_units)).toBeGreaterThan(0n);

    // A node that accepts the connection and never answers.
    silent = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
    h.ctx.config.chains[0]!.rpc_url = `http://127.0.0.1:${silent.port}`;
    const down = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/onchain`);
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ bound: true, reachable: false, total_supply_units: null, decimals: null, paused: null });
    expect(down.body.reason).toContain("did not answer");
    const detail = await call(h, me, "GET", `/v1/launches/${launch.id}`);
    expect(detail.body.mint_eligibility).toMatchObject({ eligible: false, chain_reachable: false });
    const check = await call(h, me, "POST", `/v1/launches/${launch.id}/check`);
    expect(check.body.check).toMatchObject({ status: "UNAVAILABLE", reserves: "1500", supply_units: null });
    expect(check.body.check.reason).toStartWith("supply: ");
  });
});

describe("demanded checks", () => {
  test("anyone may demand one; inside the cooldown 429 with retry_after_secs", async () => {
    h = world();
    const me = tenant(h);
    const launch = await createLaunch(h, me, custodian);
    const first = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/check`);
    expect(first.status).toBe(200);
    expect(first.body.check).toMatchObject({ seq: 1, trigger: "public", status: "VERIFIED" });
    h.clock.advance(100_000);
    const cool = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/check`);
    expect(cool.status).toBe(429);
    expect(cool.body.error).toMatchObject({ type: "check_cooldown", retry_after_secs: 200 });
    expect(cool.headers.get("retry-after")).toBe("200");
    h.clock.advance(200_000);
    expect((await call(h, null, "POST", `/v1/launches/public/${launch.slug}/check`)).status).toBe(200);
  });

  test("where a price is set: 402 with x402 terms, a transfer to the treasury pays for one check, once", async () => {
    h = world((c) => (c.launches.public_check_price_micro_usd = 20_000));
    const me = tenant(h);
    const launch = await createLaunch(h, me, custodian);
    const path = `/v1/launches/public/${launch.slug}/check`;
    const terms = await call(h, null, "POST", path);
    expect(terms.status).toBe(402);
    expect(terms.body.error).toMatchObject({ type: "payment_required", price_micro_usd: 20_000 });
    expect(terms.body.x402Version).toBe(1);
    expect(terms.body.accepts).toEqual([expect.objectContaining({ scheme: "exact", network: "devnet", maxAmountRequired: "20000", resource: path, asset: usdt })]);
    expect(terms.body.accepts[0].payTo.toLowerCase()).toBe(TREASURY);
    expect(terms.headers.get("payment-required")).toBeTruthy();

    const payer = chain.accounts[5]!;
    await chain.mint(usdt, payer, UNIT);
    const paid = await chain.transfer(usdt, payer, TREASURY as Address, 20_000n);
    const proof = Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: "devnet", payload: { tx_hash: paid } })).toString("base64");
    const ok = await call(h, null, "POST", path, undefined, { "x-payment": proof });
    expect(ok.status).toBe(200);
    expect(ok.body.check).toMatchObject({ trigger: "public", status: "VERIFIED" });
    expect(JSON.parse(Buffer.from(ok.headers.get("x-payment-response")!, "base64").toString())).toMatchObject({ success: true, transaction: paid.toLowerCase(), payer });

    h.clock.advance(300_000);
    const reused = await call(h, null, "POST", path, undefined, { "x-payment": proof });
    expect([reused.status, reused.body.error.type, reused.body.error.reason]).toEqual([402, "payment_rejected", "payment_already_used"]);

    // The transfer was money once: the payer linking that wallet cannot also turn it into credit.
    const depositor = tenant(h);
    addWallet(h.ctx, depositor.accountId, payer);
    const deposit = await call(h, depositor, "POST", "/v1/billing/deposits", { chain: "devnet", tx_hash: paid });
    expect([deposit.status, deposit.body.error.type]).toEqual([409, "transfer_already_spent"]);
    expect(h.ctx.ledger.balance(depositor.accountId).balance_micro_usd).toBe(0);
  });

  test("a treasury transfer already credited as a deposit cannot pay for a check", async () => {
    h = world((c) => (c.launches.public_check_price_micro_usd = 20_000));
    const me = tenant(h);
    const launch = await createLaunch(h, me, custodian);
    const payer = chain.accounts[7]!;
    await chain.mint(usdt, payer, UNIT);
    const paid = await chain.transfer(usdt, payer, TREASURY as Address, 20_000n);
    await chain.mine(5);
    addWallet(h.ctx, me.accountId, payer);
    expect((await call(h, me, "POST", "/v1/billing/deposits", { chain: "devnet", tx_hash: paid })).status).toBeLessThan(300);
    const proof = Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: "devnet", payload: { tx_hash: paid } })).toString("base64");
    const refused = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/check`, undefined, { "x-payment": proof });
    expect([refused.status, refused.body.error.reason]).toEqual([402, "payment_already_used"]);
  });
});

describe("subscriptions, when the rail is on", () => {
  test("terms bound to a launch, read publicly with the token's decimals; authorizations screened, fail-closed", async () => {
    const listFile = `${(await import("node:os")).tmpdir()}/svc-sanctions-${process.pid}.txt`;
    h = world((c) => {
      c.launches.subscriptions_enabled = true;
    });
    const me = tenant(h);
    const payee = chain.accounts[6]!;
    addWallet(h.ctx, me.accountId, payee);
    const launch = await createLaunch(h, me, custodian);
    const none = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/subscription`);
    expect(none.status).toBe(404);

    const notMine = await call(h, me, "POST", `/v1/launches/${launch.id}/subscription`, { chain: "devnet", payment_token: usdt, price_units: "5000000", period_secs: 2_592_000, pay_to: chain.accounts[7]! });
    expect([notMine.status, notMine.body.error.type]).toEqual([403, "payee_not_linked"]);
    const set = await call(h, me, "POST", `/v1/launches/${launch.id}/subscription`, { chain: "devnet", payment_token: usdt, price_units: "5000000", period_secs: 2_592_000, pay_to: payee });
    expect(set.status).toBe(201);
    expect(set.body).toMatchObject({ enabled: true, payment_token: usdt, payment_token_decimals: 6, price_units: "5000000", pay_to: payee });
    expect((await call(h, me, "GET", `/v1/launches/${launch.id}/subscription`)).body).toEqual(set.body);
    const pub = await call(h, null, "GET", `/v1/launches/public/${launch.slug}/subscription`);
    expect(pub.body).toEqual(set.body);

    // A payment token without decimals(): null, not a guess (an account address answers nothing).
    const odd = await call(h, me, "POST", `/v1/launches/${launch.id}/subscription`, { chain: "devnet", payment_token: chain.accounts[8]!, price_units: "1", period_secs: 86_400, pay_to: payee });
    expect(odd.status).toBe(200);
    expect(odd.body.payment_token_decimals).toBeNull();

    const subscriber = chain.accounts[9]!;
    const closed = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/subscription/authorize`, { subscriber });
    expect([closed.status, closed.body.error.type]).toEqual([503, "screening_unavailable"]);
    await Bun.write(listFile, `# test list\n${chain.accounts[4]!}\n`);
    h.ctx.config.launches.sanctions_list_path = listFile;
    const banned = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/subscription/authorize`, { subscriber: chain.accounts[4]! });
    expect([banned.status, banned.body.error.type]).toEqual([403, "subscriber_sanctioned"]);
    const okd = await call(h, null, "POST", `/v1/launches/public/${launch.slug}/subscription/authorize`, { subscriber });
    expect(okd.status).toBe(200);
    expect(okd.body).toMatchObject({ primary_type: "SubscriptionAuthorization", message: { launch: launch.id, subscriber, price: "1" } });
    expect(await recoverTypedDataAddress(typed(okd.body))).toBe(launch.verdict_signer);
    (await import("node:fs")).rmSync(listFile, { force: true });
  });
});
