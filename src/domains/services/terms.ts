/**
 * x402 for a service (docs/services.md "Paying for a call"): the terms a buyer is shown (GET
 * /v1/services/:slug and every 402 of invoke), and the proof a buyer sends back (X-PAYMENT v1 or
 * PAYMENT-SIGNATURE v2: base64 JSON naming a transfer already made).
 *
 * Both are billing's x402 (the same terms and proof format as a credit top-up), with one
 * difference that is the point of the marketplace: payTo is the SELLER's payee wallet, never the
 * deployment's treasury. svc never holds a buyer's money.
 */
import type { Config } from "../../config.ts";
import { type ChainConfig, parseProof, paymentRejected, x402Terms } from "../billing/index.ts";
import type { ServiceRow } from "./store.ts";

export { paymentRejected };

export const invokePath = (slug: string): string => `/v1/services/${slug}/invoke`;

const describe = (service: ServiceRow, chain: ChainConfig): string =>
  `${service.name}: transfer at least this much USDT on ${chain.name} to payTo (the seller's wallet), then send the call again with X-PAYMENT naming the transaction (docs/services.md)`;

const termsOf = (config: Config, service: ServiceRow, error: string) =>
  x402Terms(config, {
    amountMicroUsd: service.price_micro_usd,
    payTo: service.payee,
    path: invokePath(service.slug),
    resourceDescription: service.name,
    optionDescription: (chain) => describe(service, chain),
    error,
  });

/** x402 v1 `accepts`: one option per configured chain, the price in each chain's USDT base units (rounded up). */
export const acceptsOf = (config: Config, service: ServiceRow) => termsOf(config, service, "").accepts;

/** The x402 v2 PAYMENT-REQUIRED header (base64 JSON) carrying the same terms. */
export const paymentRequiredHeader = (config: Config, service: ServiceRow, error: string): string => termsOf(config, service, error).header;

export interface Proof {
  chain: ChainConfig;
  txHash: string;
}

/** Reads a proof exactly as billing reads a top-up's (v1 or v2; the network a configured chain's name or CAIP-2 id). */
export function readProof(config: Config, header: string): Proof {
  const { chain, txHash } = parseProof(config, header);
  return { chain, txHash };
}
