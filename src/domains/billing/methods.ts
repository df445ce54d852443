/**
 * GET /v1/billing/methods: how to pay this deployment, from its configuration. Public, so it
 * names only what a payer needs; never a chain's RPC URL (those often carry a provider key).
 */
import type { Config } from "../../config.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { depositsEnabled } from "./transfer-check.ts";

export interface ChainMethod {
  name: string;
  chain_id: number;
  asset: "USDT";
  /** The USDT contract on this chain (EIP-55). */
  token: string;
  decimals: number;
  /** Blocks a transfer needs (head − block + 1) before it is credited. */
  confirmations: number;
  explorer_url?: string;
}

export interface BillingMethods {
  /** A treasury and at least one chain are configured. */
  deposits_enabled: boolean;
  treasury: string | null;
  chains: ChainMethod[];
}

export function billingMethods(config: Config): BillingMethods {
  return {
    deposits_enabled: depositsEnabled(config),
    treasury: config.billing.treasury ? toChecksumAddress(config.billing.treasury) : null,
    chains: config.chains.map((c) => ({
      name: c.name,
      chain_id: c.chain_id,
      asset: "USDT" as const,
      token: toChecksumAddress(c.usdt),
      decimals: c.decimals,
      confirmations: c.confirmations,
      ...(c.explorer_url ? { explorer_url: c.explorer_url } : {}),
    })),
  };
}
