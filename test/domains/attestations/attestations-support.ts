/**
 * Attestations against a real local chain (anvil: the TestUSDT token's totalSupply is the
 * on-chain supply) and a stand-in custodian on 127.0.0.1 whose answers the test sets: reserves,
 * a reported supply, a third-party report, a credential-protected endpoint, and "down" (503).
 */
import { expect } from "bun:test";
import { type Address, type Hex, recoverMessageAddress } from "viem";
import type { Devnet } from "../../support/devnet.ts";
import { TEST_USDT_ABI } from "../../support/devnet.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";
import { devnetChain } from "../pay/pay-support.ts";

export const USD = 1_000_000;
export const PRICE = 25_000;
export const CUSTODIAN_SECRET = "custodian-secret-token";

export interface Custodian {
  url(path: string): string;
  state: { reserves: string; reportedSupply: string; down: boolean };
  hits: { path: string; authorization: string | null }[];
  stop(): void;
}

/** The stand-in custodian: GET /reserves, /private/reserves (bearer credential), /supply, /report.json. */
export function startCustodian(): Custodian {
  const state = { reserves: "0", reportedSupply: "0", down: false };
  const hits: Custodian["hits"] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      const authorization = req.headers.get("authorization");
      hits.push({ path, authorization });
      if (state.down) return new Response("maintenance", { status: 503 });
      if (path === "/reserves") return Response.json({ custodian: "Stand-in Trust", reserves: { usd: state.reserves } });
      if (path === "/private/reserves") {
        if (authorization !== `Bearer ${CUSTODIAN_SECRET}`) return new Response("no", { status: 401 });
        return Response.json({ reserves: { usd: state.reserves } });
      }
      if (path === "/supply") return Response.json({ reported_supply: state.reportedSupply });
      if (path === "/report.json") return Response.json({ auditor: "Stand-in Audit LLP", period: "2026-10", reserves_usd: state.reserves });
      return new Response("not found", { status: 404 });
    },
  });
  return {
    url: (path) => `http://127.0.0.1:${server.port}${path}`,
    state,
    hits,
    stop: () => void server.stop(true),
  };
}

export interface World {
  h: Harness;
  chain: Devnet;
  token: Address;
  custodian: Custodian;
}

export interface Tenant {
  accountId: string;
  keyId: string;
  auth: { headers: Record<string, string> };
  session: { headers: Record<string, string> };
}

/** A svc whose one chain is the devnet, whose evidence may reach 127.0.0.1, with checks priced at `price`. */
export function attestationsHarness(chain: Devnet, token: Address, price = PRICE): Harness {
  return makeHarness({
    config: (c) => {
      devnetChain(chain, token)(c);
      c.webhooks.allow_private = true;
      c.webhooks.timeout_secs = 2;
      c.attestations.check_price_micro_usd = price;
    },
  });
}

export function tenant(h: Harness, credit = 10 * USD): Tenant {
  const { account, session } = accountWithSession(h.ctx);
  if (credit > 0) h.ctx.ledger.credit(account.id, credit, { type: "deposit" });
  const key = apiKeyFor(h.ctx, account.id, { scopes: ["records"] });
  return { accountId: account.id, keyId: key.id, auth: { headers: bearer(key.token) }, session: { headers: bearer(session.token) } };
}

export const balance = (h: Harness, accountId: string) => h.ctx.ledger.balance(accountId).balance_micro_usd;

export const supplySource = (token: Address) => ({ kind: "erc20_supply", chain: "devnet", token, label: "on-chain supply" });
export const reservesSource = (c: Custodian) => ({ kind: "custodian", url: c.url("/reserves?apikey=query-secret"), pointer: "/reserves/usd", label: "custodian reserves" });

/** A reserves_cover_supply check body: the custodian's reserves against the token's supply. */
export const coverBody = (w: World, overrides: Record<string, unknown> = {}) => ({
  asset_id: "usdx",
  subject_ref: "USDX (TestUSDT on devnet)",
  claim: { kind: "reserves_cover_supply", tolerance_bps: 0, max_age_secs: 3600 },
  sources: [reservesSource(w.custodian), supplySource(w.token)],
  ...overrides,
});

export const check = (h: Harness, t: Tenant, body: unknown) => h.json("POST", "/v1/attestations/check", { ...t.auth, body });
export const refresh = (h: Harness, t: Tenant, assetId: string) => h.json("POST", `/v1/attestations/${assetId}/refresh`, t.auth);

/** The token's total supply in base units (6 decimals), read with viem. */
export const totalSupply = async (w: World): Promise<bigint> =>
  (await w.chain.client.readContract({ address: w.token, abi: TEST_USDT_ABI, functionName: "totalSupply" })) as bigint;

/** A signed record checked as a third party would: viem recovers the signer, which must be the deployment's published one; returns the payload. */
export async function verifiedPayload(h: Harness, signed: { receipt: string; signature: string; signer: string }): Promise<any> {
  const recovered = await recoverMessageAddress({ message: signed.receipt, signature: signed.signature as Hex });
  const pub = await h.json("GET", "/v1/receipts/pubkey");
  expect(recovered).toBe(pub.body.address);
  expect(signed.signer).toBe(pub.body.address);
  return JSON.parse(Buffer.from(signed.receipt, "base64url").toString("utf8"));
}
