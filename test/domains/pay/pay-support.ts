/**
 * Payment requests against a real local chain (anvil, test/support/devnet.ts): one devnet per
 * test file, a fresh svc per test whose one chain is the devnet, an account with a "pay" key
 * and a linked payee wallet, and signed statements checked with viem, as a payer would.
 */
import { expect } from "bun:test";
import { type Address, type Hex, recoverMessageAddress } from "viem";
import type { Config } from "../../../src/config.ts";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { DEVNET_CHAIN_ID, type Devnet } from "../../support/devnet.ts";
import { accountWithSession, apiKeyFor } from "../../support/fixtures.ts";
import { bearer, type Harness, makeHarness } from "../../support/harness.ts";

export const USDT = 1_000_000n; // base units per token (6 decimals)
export const TREASURY = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf";

export interface PayWorld {
  h: Harness;
  accountId: string;
  auth: { headers: Record<string, string> };
  /** The account's linked wallet, named as payee. */
  payee: Address;
}

export function devnetChain(chain: Devnet, token: Address, overrides: Partial<Config["chains"][number]> = {}) {
  return (c: Config) => {
    c.billing.treasury = TREASURY;
    c.chains = [{ name: "devnet", chain_id: DEVNET_CHAIN_ID, rpc_url: chain.url, usdt: token, decimals: 6, confirmations: 3, explorer_url: "https://explorer.test", ...overrides }];
  };
}

/** A svc on the devnet and an account whose payee wallet is `payee`. */
export function payWorld(config: (c: Config) => void, payee: Address): PayWorld {
  const h = makeHarness({ config });
  const { account } = accountWithSession(h.ctx);
  addWallet(h.ctx, account.id, payee);
  const key = apiKeyFor(h.ctx, account.id, { scopes: ["pay"] });
  return { h, accountId: account.id, auth: { headers: bearer(key.token) }, payee };
}

/** Another account on the same svc, with its own key and (optionally) wallet. */
export function otherAccount(h: Harness, wallet?: Address) {
  const { account } = accountWithSession(h.ctx);
  if (wallet) addWallet(h.ctx, account.id, wallet);
  const key = apiKeyFor(h.ctx, account.id, { scopes: ["pay"] });
  return { accountId: account.id, auth: { headers: bearer(key.token) } };
}

export const createRequest = (w: PayWorld, body: Record<string, unknown>, auth = w.auth) => w.h.json("POST", "/v1/pay/requests", { ...auth, body: { asset: "USDT", chain: "devnet", payee: w.payee, ...body } });
export const settle = (w: PayWorld, id: string, txHash: string, auth = w.auth) => w.h.json("POST", `/v1/pay/requests/${id}/settle`, { ...auth, body: { tx_hash: txHash } });
export const getRequest = (w: PayWorld, id: string, auth = w.auth) => w.h.json("GET", `/v1/pay/requests/${id}`, auth);

/** A signed statement checked as a payer would: viem recovers the signer, which must be the deployment's published one; returns the payload. */
export async function verifiedPayload(h: Harness, signed: { statement: string; signature: string; signer: string }): Promise<any> {
  const recovered = await recoverMessageAddress({ message: signed.statement, signature: signed.signature as Hex });
  const pub = await h.json("GET", "/v1/receipts/pubkey");
  expect(recovered).toBe(pub.body.address);
  expect(signed.signer).toBe(pub.body.address);
  return JSON.parse(Buffer.from(signed.statement, "base64url").toString("utf8"));
}
