/**
 * Paying for a demanded check with x402 (spec §7: 402 "launch check where a price is set";
 * docs/payments.md for svc's x402). The caller is anonymous, so nothing is credited to an
 * account: the proof names a transfer of a configured chain's USDT to the treasury, at least the
 * price, with the chain's confirmations, and that transfer buys one check once
 * (launch_check_payments, keyed like deposits by chain id, tx hash and log position).
 *
 * Terms follow svc's 402 shape: the error object with x402 v1's x402Version and accepts[]
 * beside it, and the v2 PAYMENT-REQUIRED header (base64 JSON). Proofs are X-PAYMENT (v1) or
 * PAYMENT-SIGNATURE (v2) carrying {…, payload: {tx_hash}}, as billing's x402 takes them.
 */
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError } from "../../core/errors.ts";
import { microUsdToTokenUnits } from "../../core/money.ts";
import type { Context } from "../../context.ts";
import { type ChainConfig, inspectTransaction, parseProof, paymentHeader, paymentRejected, x402Terms } from "../billing/index.ts";
import { checkPaymentUsed } from "./store.ts";

const b64json = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64");

export const rejected = paymentRejected;

/** The 402 a priced check answers without a proof: svc's error object, x402 v1 fields beside it, the v2 header (billing's terms, paid to the treasury). */
export function paymentRequired(ctx: Context, path: string): { body: { error: { type: string; message: string; price_micro_usd: number }; x402Version: 1; accepts: unknown[] }; headers: Record<string, string> } {
  const price = ctx.config.launches.public_check_price_micro_usd;
  const message = `this check costs ${price} micro-USD, paid in USDT to the treasury; pay, then retry with X-PAYMENT (docs/launches.md)`;
  const terms = x402Terms(ctx.config, {
    amountMicroUsd: price,
    payTo: ctx.config.billing.treasury,
    path,
    resourceDescription: "A reserve check of a launch",
    optionDescription: () => "A reserve check of a launch, demanded now",
    error: message,
  });
  return { body: { x402Version: 1, accepts: terms.accepts, error: { type: "payment_required", message, price_micro_usd: price } }, headers: { "payment-required": terms.header } };
}

export class PaymentRequired extends Error {}

export interface CheckPayment {
  chain: ChainConfig;
  txHash: string;
  position: number;
  payer: string;
  amountUnits: bigint;
}

/**
 * The proof the request carries, checked (not yet spent: the caller spends it in the
 * transaction that records the check). Throws PaymentRequired when there is none.
 */
export async function verifyCheckPayment(ctx: Context, headers: Record<string, string | undefined>): Promise<CheckPayment> {
  const header = paymentHeader(headers);
  if (header === null) throw new PaymentRequired();
  const { chain, txHash } = parseProof(ctx.config, header);
  const price = microUsdToTokenUnits(ctx.config.launches.public_check_price_micro_usd, chain.decimals);
  let inspection;
  try {
    inspection = await inspectTransaction(chain, txHash);
  } catch (err) {
    if (err instanceof ApiError && err.status < 500) throw rejected(err.type, err.message);
    throw err;
  }
  const usdt = chain.usdt.toLowerCase();
  const treasury = ctx.config.billing.treasury.toLowerCase();
  const paying = inspection.transfers.filter((t) => t.token === usdt && t.to === treasury && t.value >= price);
  if (!paying.length) throw rejected("no_matching_transfer", `transaction ${txHash} holds no transfer of at least ${price} base units of chain "${chain.name}"'s USDT to the treasury`);
  const unused = paying.find((t) => !checkPaymentUsed(ctx, chain.chain_id, txHash, t.position));
  if (!unused) throw rejected("payment_already_used", "this transfer has already paid for a check");
  if (inspection.confirmations < chain.confirmations) {
    throw rejected("payment_pending", `the transfer has ${inspection.confirmations} of the ${chain.confirmations} confirmations chain "${chain.name}" requires; retry with the same proof once it has them`, {
      confirmations: inspection.confirmations,
      required_confirmations: chain.confirmations,
    });
  }
  return { chain, txHash, position: unused.position, payer: unused.from, amountUnits: unused.value };
}

export const paymentResponseHeaders = (p: CheckPayment): Record<string, string> => {
  const base = { success: true, transaction: p.txHash, payer: toChecksumAddress(p.payer) };
  return { "x-payment-response": b64json({ ...base, network: p.chain.name }), "payment-response": b64json({ ...base, network: `eip155:${p.chain.chain_id}` }) };
};
