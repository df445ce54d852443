/**
 * Proof of backing against an on-chain supply (docs/pob.md): a stand-in custodian's reserve
 * compared with an ERC-20's totalSupply() on the devnet, read at every check — BACKED while the
 * reserve covers what was minted, UNDERBACKED once more is minted, UNAVAILABLE when the chain
 * does not answer.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { verifyMessage } from "viem";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { type Devnet, DEVNET_CHAIN_ID, startDevnet } from "../../support/devnet.ts";
import { type Custodian, startCustodian } from "./custodian.ts";

let chain: Devnet;
let h: Harness;
let custodian: Custodian;

beforeAll(async () => {
  chain = await startDevnet();
  custodian = startCustodian();
  h = makeHarness({
    config: (c) => {
      c.webhooks.allow_private = true;
      c.chains = [{ name: "devnet", chain_id: DEVNET_CHAIN_ID, rpc_url: chain.url, usdt: `0x${"0".repeat(40)}`, decimals: 6, confirmations: 1, explorer_url: "https://explorer.test" }];
    },
  });
});
afterAll(async () => {
  h?.close();
  custodian?.stop();
  await chain?.stop();
});

test("the reserve is compared with the token's totalSupply() read at each check", async () => {
  const token = await chain.deployToken();
  await chain.mint(token, chain.accounts[1]!, 1_000_000_000n); // 1000 tokens at 6 decimals
  const { session } = accountWithSession(h.ctx);
  const auth = bearer(session.token);
  custodian.reports("/reserve", "1000.5");
  const created = await h.json("POST", "/v1/pob/subjects", {
    headers: auth,
    body: { name: "Devnet Dollar", endpoint: custodian.url("/reserve"), pointer: "/reserves/usd", supply_source: { kind: "erc20_supply", chain: "devnet", token } },
  });
  expect(created.status).toBe(201);
  expect(created.body.supply_source).toMatchObject({ kind: "erc20_supply", chain: "devnet", token: token.toLowerCase(), source_ref: `erc20:devnet:${token.toLowerCase()}` });
  const id = created.body.id;

  const check = async () => {
    h.clock.advance(10_000);
    const r = await h.json("POST", `/v1/pob/subjects/${id}/check`, { headers: auth });
    expect(r.status).toBe(201);
    expect(r.body.line_sha256).toBe(createHash("sha256").update(r.body.line).digest("hex"));
    expect(await verifyMessage({ address: r.body.signer, message: r.body.line, signature: r.body.signature })).toBe(true);
    return r.body;
  };

  const backed = await check();
  expect(backed).toMatchObject({ status: "BACKED", reserve: "1000.5", supply: "1000" });
  expect(backed.evidence.supply).toMatchObject({ source_kind: "erc20_supply", source_ref: `erc20:devnet:${token.toLowerCase()}` });
  expect(backed.line).toEndWith(`|BACKED|1000.5|1000|${backed.evidence.reserve.content_sha256}|${backed.evidence.supply.content_sha256}`);

  await chain.mint(token, chain.accounts[2]!, 500_001n); // supply 1000.500001
  expect(await check()).toMatchObject({ status: "UNDERBACKED", reserve: "1000.5", supply: "1000.500001" });

  await chain.stop();
  const down = await check();
  expect(down).toMatchObject({ status: "UNAVAILABLE", reserve: null, supply: null });
  expect(down.reason).toStartWith("supply source: ");
  expect(down.evidence.supply).toBeNull();
});
