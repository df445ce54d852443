/**
 * x402 on svc (docs/payments.md): payment terms on the way out, payment proofs on the way in.
 *
 * Out: a 402 insufficient_credit carries terms for topping the account up by the amount short:
 * the v1 body fields (x402Version, accepts[]) merged beside svc's own error object, and the v2
 * PAYMENT-REQUIRED header (base64 JSON). The app's one error handler calls paymentTerms() for
 * every ApiError, so any route whose reservation fails gets terms without knowing about x402.
 * spend_cap_reached and circuit_breaker_tripped never get terms: paying does not lift them.
 *
 * In: a request on an API-key route may carry X-PAYMENT (v1) or PAYMENT-SIGNATURE (v2): base64
 * JSON naming a transfer already made on a configured chain. svc settles nothing itself (it
 * holds no gas key): the agent pays, then proves it. The proof is verified exactly like a
 * deposit (same chain, token, treasury, confirmations and sender rules; same table, so a
 * transfer credits once however it arrives), credited, and the request proceeds. A proof
 * that is bad, pending or already used answers 402 payment_rejected with a reason.
 */
import type { Config } from "../../config.ts";
import type { ErrorDecorator } from "../../core/error-handler.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError } from "../../core/errors.ts";
import { isMicroUsd, microUsdToTokenUnits } from "../../core/money.ts";
import type { Context } from "../../context.ts";
import { claimableTransfers, consumePayment, type DepositRow, recordTransfers } from "./deposits.ts";
import { type ChainConfig, depositsEnabled, inspectTransaction, TX_HASH_PATTERN } from "./transfer-check.ts";

/** How long a client may take over paying; svc itself puts no deadline on a proof. */
export const MAX_TIMEOUT_SECONDS = 600;
const MAX_HEADER_CHARS = 8192;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const TX_HASH = new RegExp(TX_HASH_PATTERN);

const b64json = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64");

/** Refusals of the deposit rules that mean "this proof is no good" (others, like an unreachable node, keep their status). */
const PROOF_REFUSALS = new Set([
  "transaction_not_found",
  "transaction_not_mined",
  "transaction_failed",
  "wrong_token",
  "wrong_recipient",
  "no_usdt_transfer",
  "sender_not_linked",
  "amount_too_small",
  "amount_too_large",
  "deposit_already_claimed",
  "transfer_already_spent",
]);

export const paymentRejected = (reason: string, message: string, extra: Record<string, unknown> = {}): ApiError =>
  new ApiError(402, "payment_rejected", `payment not accepted: ${message}`, { ...extra, reason });

/** CAIP-2 name of a chain, as x402 v2 names networks. */
const caip2 = (chain: ChainConfig) => `eip155:${chain.chain_id}`;

/** A chain by its v1 network name (the chain's name in svc) or its v2 CAIP-2 id. */
export function chainForNetwork(config: Config, network: string): ChainConfig | null {
  const byName = config.chains.find((c) => c.name === network);
  if (byName) return byName;
  const m = /^eip155:(\d+)$/.exec(network);
  return m ? (config.chains.find((c) => c.chain_id === Number(m[1])) ?? null) : null;
}

// ---------------------------------------------------------------------------------------------
// Out: terms on 402 insufficient_credit

const description = (chain: ChainConfig) =>
  `Top up svc credit: transfer at least this much USDT on ${chain.name} to payTo from a wallet linked to your account, then retry with X-PAYMENT (docs/payments.md)`;

export interface TermsFor {
  amountMicroUsd: number;
  /** Who the buyer pays: the treasury for a top-up, a seller's wallet for a service. */
  payTo: string;
  /** Path of the resource the payment unlocks. */
  path: string;
  /** What v2 calls the resource, and each v1 option's description on `chain`. */
  resourceDescription: string;
  optionDescription: (chain: ChainConfig) => string;
  error: string;
}

/**
 * x402 terms, both versions: the v1 `accepts` options (one per configured chain; the amount in
 * each token's base units, rounded up so paying it always covers what is asked) and the v2
 * PAYMENT-REQUIRED header (base64 JSON). Top-ups and the services marketplace both answer with these.
 */
export function x402Terms(config: Config, t: TermsFor) {
  const payTo = toChecksumAddress(t.payTo);
  const option = (c: ChainConfig) => ({
    amount: microUsdToTokenUnits(t.amountMicroUsd, c.decimals).toString(),
    asset: toChecksumAddress(c.usdt),
    extra: { name: "USDT" as const, decimals: c.decimals, chain_id: c.chain_id },
  });
  const accepts = config.chains.map((c) => {
    const o = option(c);
    return {
      scheme: "exact" as const,
      network: c.name,
      maxAmountRequired: o.amount,
      resource: t.path,
      description: t.optionDescription(c),
      mimeType: "application/json",
      payTo,
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      asset: o.asset,
      // v1 options also say how many confirmations the transfer needs before a proof is accepted.
      extra: { ...o.extra, confirmations: c.confirmations },
    };
  });
  const v2 = {
    x402Version: 2,
    error: t.error,
    resource: { url: `${config.public_url}${t.path}`, description: t.resourceDescription, mimeType: "application/json" },
    accepts: config.chains.map((c) => {
      const o = option(c);
      return { scheme: "exact", network: caip2(c), amount: o.amount, asset: o.asset, payTo, maxTimeoutSeconds: MAX_TIMEOUT_SECONDS, extra: o.extra };
    }),
  };
  return { accepts, header: b64json(v2) };
}

/**
 * The error handler's decorator: x402 terms for a 402 insufficient_credit, nothing for any
 * other error (nor when the deployment takes no deposits). The amount is what the request is short.
 */
export function paymentTerms(ctx: Context): ErrorDecorator {
  return (err, request) => {
    if (err.status !== 402 || err.type !== "insufficient_credit" || !depositsEnabled(ctx.config)) return null;
    const required = err.extra.required_micro_usd;
    const spendable = err.extra.spendable_micro_usd;
    if (!isMicroUsd(required) || !isMicroUsd(spendable)) return null;
    const terms = x402Terms(ctx.config, {
      amountMicroUsd: Math.max(required - Math.max(spendable, 0), 1),
      payTo: ctx.config.billing.treasury,
      path: new URL(request.url).pathname,
      resourceDescription: "svc credit top-up (docs/payments.md)",
      optionDescription: description,
      error: err.message,
    });
    return { body: { x402Version: 1, accepts: terms.accepts }, headers: { "payment-required": terms.header } };
  };
}

// ---------------------------------------------------------------------------------------------
// In: X-PAYMENT / PAYMENT-SIGNATURE

export interface PaymentProof {
  version: 1 | 2;
  chain: ChainConfig;
  txHash: string;
}

/**
 * Decodes a proof: base64 JSON, v1 `{x402Version: 1, scheme: "exact", network, payload: {tx_hash}}`
 * or v2 `{x402Version: 2, accepted: {scheme: "exact", network, …}, payload: {tx_hash}}`.
 */
export function parseProof(config: Config, header: string): PaymentProof {
  const malformed = (why: string) => paymentRejected("malformed_payment", why);
  const value = header.trim();
  if (value.length > MAX_HEADER_CHARS || !BASE64.test(value)) throw malformed("the payment header must be base64-encoded JSON");
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.from(value, "base64").toString("utf8")) as Record<string, unknown>;
  } catch {
    throw malformed("the payment header must be base64-encoded JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) throw malformed("the payment header must hold a JSON object");
  const version = body.x402Version;
  if (version !== 1 && version !== 2) throw paymentRejected("unsupported_version", "x402Version must be 1 or 2");
  const accepted = (version === 2 ? body.accepted : body) as Record<string, unknown> | undefined;
  if (!accepted || typeof accepted !== "object") throw malformed("a v2 payment must carry `accepted` (the terms it pays)");
  if (accepted.scheme !== "exact") throw paymentRejected("unsupported_scheme", `scheme must be "exact"`);
  if (typeof accepted.network !== "string") throw malformed("network is required");
  const payload = body.payload as Record<string, unknown> | undefined;
  if (!payload || typeof payload !== "object") throw malformed("payload is required");
  if (typeof payload.tx_hash !== "string") {
    // An EIP-3009 authorization would need svc to submit the transfer with its own gas key.
    throw paymentRejected("unsupported_payload", "svc accepts settled transfers only: make the transfer, then send payload.tx_hash (docs/payments.md)");
  }
  if (!TX_HASH.test(payload.tx_hash)) throw malformed("payload.tx_hash must be a 0x-prefixed 32-byte hex transaction hash");
  const chain = chainForNetwork(config, accepted.network);
  if (!chain) throw paymentRejected("unknown_network", `network "${accepted.network}" is not one this deployment accepts (GET /v1/billing/methods)`);
  return { version, chain, txHash: payload.tx_hash.toLowerCase() };
}

export interface AcceptedPayment {
  chain: ChainConfig;
  txHash: string;
  payer: string;
  amountMicroUsd: number;
}

/** The proof a request carries, if any. Both headers with different values is refused. */
export function paymentHeader(headers: Record<string, string | undefined>): string | null {
  const v1 = headers["x-payment"];
  const v2 = headers["payment-signature"];
  if (v1 !== undefined && v2 !== undefined && v1 !== v2) throw paymentRejected("malformed_payment", "send one payment proof: X-PAYMENT or PAYMENT-SIGNATURE, not two different ones");
  return v1 ?? v2 ?? null;
}

/**
 * Verifies and credits the proof for the key's account. Resolves when the request may
 * proceed; throws 402 payment_rejected (with `reason`) when it may not on this proof.
 */
export async function acceptPayment(ctx: Context, accountId: string, header: string): Promise<AcceptedPayment> {
  if (!depositsEnabled(ctx.config)) throw paymentRejected("payments_disabled", "this deployment accepts no payments (no treasury or chain configured)");
  const proof = parseProof(ctx.config, header);
  let rows: DepositRow[];
  try {
    const inspection = await inspectTransaction(proof.chain, proof.txHash);
    rows = recordTransfers(ctx, accountId, inspection, claimableTransfers(ctx, accountId, inspection), "payment").rows;
  } catch (err) {
    if (err instanceof ApiError && PROOF_REFUSALS.has(err.type)) throw paymentRejected(err.type, err.message, err.extra);
    throw err;
  }
  const consumed = consumePayment(ctx, rows);
  if (consumed.length) {
    return { chain: proof.chain, txHash: proof.txHash, payer: toChecksumAddress(consumed[0]!.from_address), amountMicroUsd: consumed.reduce((s, r) => s + r.amount_micro_usd, 0) };
  }
  const pending = rows.find((r) => r.status === "pending");
  if (pending) {
    throw paymentRejected("payment_pending", `the transfer has ${pending.confirmations} of the ${pending.required_confirmations} confirmations chain "${pending.chain}" requires; retry with the same proof once it has them`, {
      confirmations: pending.confirmations,
      required_confirmations: pending.required_confirmations,
    });
  }
  throw paymentRejected("payment_already_used", "this transfer has already been credited (by an earlier payment or as a deposit); its credit is on the account, so retry without a payment header");
}

/** x402's settlement-response headers for a request a proof let through (v1 and v2 names). */
export function paymentResponseHeaders(payment: AcceptedPayment): Record<string, string> {
  const base = { success: true, transaction: payment.txHash, payer: payment.payer };
  return {
    "x-payment-response": b64json({ ...base, network: payment.chain.name }),
    "payment-response": b64json({ ...base, network: caip2(payment.chain) }),
  };
}
