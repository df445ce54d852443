/**
 * A svc for the marketplace tests: a seller account with a session and a linked payee wallet, on
 * a deployment whose one chain is `chain` (a devnet, or a configured chain nobody dials when a
 * test never pays), private upstreams allowed (stand-in servers live on 127.0.0.1) and a public
 * rate limit no test reaches.
 */
import type { Config } from "../../../src/config.ts";
import { addWallet } from "../../../src/domains/auth/wallets.ts";
import { DEVNET_CHAIN_ID } from "../../support/devnet.ts";
import { accountWithSession } from "../../support/fixtures.ts";
import { bearer, type Harness } from "../../support/harness.ts";

export const TREASURY = "0x7e5f4552091a69125d5dfcb7b8c2659029395bdf";
/** A token address for a chain no test pays on. */
export const UNUSED_TOKEN = `0x${"11".repeat(20)}`;

export function marketConfig(chain: { url: string; token: string } | null, more: (c: Config) => void = () => {}) {
  return (c: Config) => {
    c.billing.treasury = TREASURY;
    c.webhooks.allow_private = true;
    c.rate_limit.public_burst = 100_000;
    c.chains = chain ? [{ name: "devnet", chain_id: DEVNET_CHAIN_ID, rpc_url: chain.url, usdt: chain.token, decimals: 6, confirmations: 3, explorer_url: "https://explorer.test" }] : [];
    more(c);
  };
}

export interface Seller {
  accountId: string;
  auth: { headers: Record<string, string> };
  payee: string;
}

export function seller(h: Harness, payee: string): Seller {
  const { account, session } = accountWithSession(h.ctx);
  addWallet(h.ctx, account.id, payee);
  return { accountId: account.id, auth: { headers: bearer(session.token) }, payee };
}

export const createService = (h: Harness, s: Seller, body: Record<string, unknown>) =>
  h.json("POST", "/v1/services", { ...s.auth, body: { name: "Echo", description: "echoes", price_micro_usd: 250_000, payee: s.payee, ...body } });

/** An X-PAYMENT header (x402 v1) naming a transaction on `network`. */
export const xPayment = (txHash: string, network = "devnet") => ({ "x-payment": Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network, payload: { tx_hash: txHash } })).toString("base64") });
