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
import { type ChainConfig, inspectTransaction, paymentHeader } from "../billing/index.ts";
import { checkPaymentUsed } from "./store.ts";

const MAX_TIMEOUT_SECONDS = 600;
const b64json = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64");

export const rejected = (reason: string, message: string, extra: Record<string, unknown> = {}): ApiError =>
  new ApiError(402, "payment_rejected", `payment not accepted: ${message}`, { ...extra, reason });

/** The 402 a priced check answers without a proof: svc's error object, x402 v1 fields beside it, the v2 header. */
export function paymentRequired(ctx: Context, path: string): { body: { error: { type: string; message: string; price_micro_usd: number }; x402Version: 1; accepts: unknown[] }; headers: Record<string, string> } {
  const price = ctx.config.launches.public_check_price_micro_usd;
  const payTo = toChecksumAddress(ctx.config.billing.treasury);
  const message = `this check costs ${price} micro-USD, paid in USDT to the treasury; pay, then retry with X-PAYMENT (docs/launches.md)`;
  const option = (c: ChainConfig) => ({ amount: microUsdToTokenUnits(price, c.decimals).toString(), asset: toChecksumAddress(c.usdt), extra: { name: "USDT", decimals: c.decimals, chain_id: c.chain_id } });
  const accepts = ctx.config.chains.map((c) => {
    const o = option(c);
    return { scheme: "exact", network: c.name, maxAmountRequired: o.amount, resource: path, description: "A reserve check of a launch, demanded now", mimeType: "application/json", payTo, maxTimeoutSeconds: MAX_TIMEOUT_SECONDS, asset: o.asset, extra: o.extra };
  });
  const v2 = {
    x402Version: 2,
    error: message,
    resource: { url: `${ctx.config.public_url}${path}`, description: "A reserve check of a launch", mimeType: "application/json" },
    accepts: ctx.config.chains.map((c) => {
      const o = option(c);
      return { scheme: "exact", network: `eip155:${c.chain_id}`, amount: o.amount, asset: o.asset, payTo, maxTimeoutSeconds: MAX_TIMEOUT_SECONDS, extra: o.extra };
    }),
  };
  return { body: { x402Version: 1, accepts, error: { type: "payment_required", message, price_micro_usd: price } }, headers: { "payment-required": b64json(v2) } };
}

export class PaymentRequired extends Error {}

export interface CheckPayment {
  chain: ChainConfig;
  txHash: string;
  position: number;
  payer: string;
  amountUnits: bigint;
}

function proofOf(ctx: Context, header: string): { chain: ChainConfig; txHash: string } {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.from(header.trim(), "base64").toString("utf8")) as Record<string, unknown>;
  } catch {
    throw rejected("malformed_payment", "the payment header must be base64-encoded JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw rejected("malformed_payment", "the payment header must hold a JSON object");
  if (body.x402Version !== 1 && body.x402Version !== 2) throw rejected("unsupported_version", "x402Version must be 1 or 2");
  const accepted = (body.x402Version === 2 ? body.accepted : body) as Record<string, unknown> | undefined;
  if (!accepted || typeof accepted !== "object" || typeof accepted.network !== "string") throw rejected("malformed_payment", "network is required");
  if (accepted.scheme !== "exact") throw rejected("unsupported_scheme", 'scheme must be "exact"');
  const txHash = (body.payload as Record<string, unknown> | undefined)?.tx_hash;
  if (typeof txHash !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(txHash)) throw rejected("malformed_payment", "payload.tx_hash must be a 0x-prefixed 32-byte hex transaction hash");
  const network = accepted.network;
  const m = /^eip155:(\d+)$/.exec(network);
  const chain = ctx.config.chains.find((c) => c.name === network || (m !== null && c.chain_id === Number(m[1])));
  if (!chain) throw rejected("unknown_network", `network "${network}" is not one this deployment accepts`);
  return { chain, txHash: txHash.toLowerCase() };
}

/**
 * The proof the request carries, checked (not yet spent: the caller spends it in the
 * transaction that records the check). Throws PaymentRequired when there is none.
 */
export async function verifyCheckPayment(ctx: Context, headers: Record<string, string | undefined>): Promise<CheckPayment> {
  const header = paymentHeader(headers);
  if (header === null) throw new PaymentRequired();
  const { chain, txHash } = proofOf(ctx, header);
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
