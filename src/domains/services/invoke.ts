/**
 * POST /v1/services/:slug/invoke (docs/services.md "Paying for a call"): x402 between a buyer
 * and a seller, with svc as the verifier and the runner, never the holder of the money.
 *
 * Without a payment header the answer is 402 with the terms (payTo: the seller's payee). With
 * one, the transaction is read from the chain (billing's inspectTransaction: the node's chain id,
 * a mined receipt with status 1, the confirmations) and one of its ERC-20 Transfer logs must pay
 * the call: the chain's USDT, to the service's payee, at least the price in token units, with the
 * chain's required confirmations, and never used for a call before.
 *
 * Exactly once: a transfer is (chain id, tx hash, log position), the primary key of
 * service_payments, and it is spent inside the write transaction that records the call, where it
 * is checked again; SQLite serialises write transactions, so of two invokes racing on one
 * transfer one wins and the other is refused. The transfer is spent BEFORE the call runs (so two
 * racing buyers never both get the work) and released if the call fails (no answer, 5xx,
 * timeout), so the buyer may retry with the same proof; a call interrupted by a crash stays
 * "running" with its transfer spent.
 */
import { performance } from "node:perf_hooks";
import { isoTime } from "../../core/clock.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, invalidField, notImplemented } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { microUsdToTokenUnits, tokenUnitsToMicroUsd } from "../../core/money.ts";
import { sha256Hex } from "../../core/secrets.ts";
import { signStatement } from "../../core/statements.ts";
import type { Erc20Transfer } from "../../core/chain.ts";
import type { Context } from "../../context.ts";
import { inspectTransaction, type Inspection, paymentHeader, paymentResponseHeaders } from "../billing/index.ts";
import { callableService } from "./catalog.ts";
import { MAX_INPUT_CHARS, PAYLOAD_VERSION } from "./limits.ts";
import { type CallResult, runCall } from "./run.ts";
import * as S from "./store.ts";
import type { CallRow, ServiceRow } from "./store.ts";
import { paymentFacts } from "./call-facts.ts";
import { acceptsOf, paymentRejected, paymentRequiredHeader, type Proof, readProof } from "./terms.ts";

/** Refusals of the chain reading that mean "this proof is no good" (others, like an unreachable node, keep their status). */
const PROOF_REFUSALS = new Set(["transaction_not_found", "transaction_not_mined", "transaction_failed"]);

export interface Invoked {
  call_id: string;
  service_id: string;
  slug: string;
  status: "completed";
  result: CallResult;
  payment: { chain: string; chain_id: number; tx_hash: string; log_index: number; payer: string; amount_units: string; amount_micro_usd: number };
  latency_ms: number;
  request_sha256: string;
  response_sha256: string;
  receipt: { statement: string; signature: string; signer: string };
}

export type InvokeAnswer =
  | { status: 200; body: Invoked; headers: Record<string, string> }
  | { status: 402; body: { x402Version: 1; accepts: ReturnType<typeof acceptsOf>; error: TermsError }; headers: Record<string, string> };

/** svc's error object of a 402 (payment_required, or payment_rejected with its reason). */
type TermsError = { type: "payment_required" | "payment_rejected"; message: string; reason?: string } & Record<string, unknown>;

interface Verified {
  proof: Proof;
  inspection: Inspection;
  /** Transfers that pay the call and were unspent when read, in log order. */
  paying: Erc20Transfer[];
}

async function inspect(proof: Proof): Promise<Inspection> {
  try {
    return await inspectTransaction(proof.chain, proof.txHash);
  } catch (err) {
    if (err instanceof ApiError && PROOF_REFUSALS.has(err.type)) throw paymentRejected(err.type, err.message, err.extra);
    throw err;
  }
}

/** The transfers in the transaction that pay this service's price to its payee; refusals name what the transaction did instead. */
async function verify(ctx: Context, service: ServiceRow, proof: Proof): Promise<Verified> {
  const inspection = await inspect(proof);
  const { chain, txHash } = proof;
  const token = chain.usdt.toLowerCase();
  const required = microUsdToTokenUnits(service.price_micro_usd, chain.decimals);
  const toPayee = inspection.transfers.filter((t) => t.token === token && t.to === service.payee);
  if (!toPayee.length) {
    if (inspection.transfers.some((t) => t.to === service.payee)) throw paymentRejected("wrong_token", `transaction ${txHash} pays the seller in another token, not chain "${chain.name}"'s USDT (${toChecksumAddress(chain.usdt)})`);
    if (inspection.transfers.some((t) => t.token === token)) throw paymentRejected("wrong_payee", `transaction ${txHash} sends USDT to someone else, not to the service's payee ${toChecksumAddress(service.payee)}`);
    throw paymentRejected("no_matching_transfer", `transaction ${txHash} holds no transfer of chain "${chain.name}"'s USDT to ${toChecksumAddress(service.payee)}`);
  }
  const enough = toPayee.filter((t) => t.value >= required);
  if (!enough.length) {
    const largest = toPayee.reduce((a, b) => (b.value > a.value ? b : a));
    throw paymentRejected("amount_too_small", `transaction ${txHash} pays ${largest.value} base units to the seller; a call costs at least ${required}`, {
      amount_units: largest.value.toString(),
      required_units: required.toString(),
    });
  }
  const paying = enough.filter((t) => S.callPaidBy(ctx, chain.chain_id, txHash, t.position) === null);
  if (!paying.length) throw alreadyUsed(txHash);
  if (inspection.confirmations < chain.confirmations) {
    throw paymentRejected("payment_pending", `the transfer has ${inspection.confirmations} of the ${chain.confirmations} confirmations chain "${chain.name}" requires; retry with the same proof once it has them`, {
      confirmations: inspection.confirmations,
      required_confirmations: chain.confirmations,
    });
  }
  return { proof, inspection, paying };
}

const alreadyUsed = (txHash: string): ApiError =>
  // Silent about which call, or whose, it paid for.
  paymentRejected("payment_already_used", `the transfer in transaction ${txHash} has already paid for a call; each transfer pays for one call once`);

function microUsdOf(units: bigint, decimals: number): number {
  try {
    return tokenUnitsToMicroUsd(units, decimals);
  } catch {
    throw paymentRejected("amount_too_large", "the transfer is larger than svc can account for");
  }
}

/** The handler's text comes from the buyer's `input`; an upstream takes any JSON object. */
function inputOf(service: ServiceRow, body: Record<string, unknown>): string | null {
  if (service.upstream_url !== null) return null;
  const input = body.input;
  if (typeof input !== "string" || !input.trim()) throw invalidField("input", "is required: the text the service's model answers");
  if (input.length > MAX_INPUT_CHARS) throw invalidField("input", `must be at most ${MAX_INPUT_CHARS} characters`);
  return input;
}

/** Spends one unspent paying transfer on a new call, inside the write transaction; 402 when a racing call took the last one. */
function claim(ctx: Context, service: ServiceRow, v: Verified, requestSha256: string): { row: CallRow; transfer: Erc20Transfer } {
  return ctx.tx.run(() => {
    const { chain, txHash } = v.proof;
    const transfer = v.paying.find((t) => S.callPaidBy(ctx, chain.chain_id, txHash, t.position) === null);
    if (!transfer) throw alreadyUsed(txHash);
    const row: CallRow = {
      id: newId("scall"),
      service_id: service.id,
      status: "running",
      price_micro_usd: service.price_micro_usd,
      chain: chain.name,
      chain_id: chain.chain_id,
      tx_hash: txHash,
      log_index: transfer.logIndex,
      payer: transfer.from,
      amount_units: transfer.value.toString(),
      amount_micro_usd: microUsdOf(transfer.value, chain.decimals),
      http_status: null,
      latency_ms: null,
      request_sha256: requestSha256,
      response_sha256: null,
      error: null,
      statement: null,
      signature: null,
      signer: null,
      created_at: ctx.clock.now(),
      finished_at: null,
    };
    S.insertCall(ctx, row, transfer.position);
    return { row, transfer };
  });
}

function receiptPayload(service: ServiceRow, row: CallRow, v: Verified, facts: { httpStatus: number | null; latencyMs: number; responseSha256: string; at: number }): Record<string, unknown> {
  return {
    v: PAYLOAD_VERSION,
    type: "service_call",
    call_id: row.id,
    service_id: service.id,
    slug: service.slug,
    status: "completed",
    ...paymentFacts(row),
    token: toChecksumAddress(v.proof.chain.usdt),
    payee: toChecksumAddress(service.payee),
    block_number: v.inspection.blockNumber,
    http_status: facts.httpStatus,
    latency_ms: facts.latencyMs,
    request_sha256: row.request_sha256,
    response_sha256: facts.responseSha256,
    issued_at: isoTime(facts.at),
  };
}

/** What the seller's webhook hears: ids, money, settlement, outcome; never the request or the answer. */
function eventPayload(service: ServiceRow, row: CallRow, facts: { httpStatus: number | null; latencyMs: number }): Record<string, unknown> {
  return {
    service_id: service.id,
    slug: service.slug,
    call_id: row.id,
    status: "completed",
    ...paymentFacts(row),
    http_status: facts.httpStatus,
    latency_ms: facts.latencyMs,
  };
}

async function paidCall(ctx: Context, service: ServiceRow, header: string, body: Record<string, unknown>): Promise<InvokeAnswer> {
  const input = inputOf(service, body);
  const verified = await verify(ctx, service, readProof(ctx.config, header));
  const requestBody = JSON.stringify(body);
  const requestSha256 = sha256Hex(requestBody);
  const { row } = claim(ctx, service, verified, requestSha256);

  const started = performance.now();
  let outcome;
  try {
    outcome = await runCall(ctx, service, row.id, requestBody, input);
  } catch (err) {
    // Whatever broke, the buyer's transfer must not stay spent on a call that gave nothing.
    ctx.tx.run(() => S.failCall(ctx, row.id, { http_status: null, latency_ms: Math.round(performance.now() - started), error: "the call failed inside svc", finished_at: ctx.clock.now() }));
    throw err;
  }
  const latencyMs = Math.round(performance.now() - started);
  const at = ctx.clock.now();
  if (!outcome.ok) {
    ctx.tx.run(() => S.failCall(ctx, row.id, { http_status: outcome.httpStatus, latency_ms: latencyMs, error: outcome.reason, finished_at: at }));
    throw new ApiError(502, "service_call_failed", `${outcome.reason}; your payment was not used: send the call again with the same payment header`, { call_id: row.id, reason: outcome.reason });
  }
  const facts = { httpStatus: outcome.httpStatus, latencyMs, responseSha256: outcome.responseSha256, at };
  const signed = signStatement(ctx.signer, receiptPayload(service, row, verified, facts));
  ctx.tx.run(() => {
    S.completeCall(ctx, row.id, { http_status: facts.httpStatus, latency_ms: latencyMs, response_sha256: facts.responseSha256, ...signed, finished_at: at });
    ctx.outbox.emit("service_called", service.account_id, eventPayload(service, row, facts));
  });
  const payer = toChecksumAddress(row.payer);
  return {
    status: 200,
    headers: paymentResponseHeaders({ chain: verified.proof.chain, txHash: row.tx_hash, payer, amountMicroUsd: row.amount_micro_usd }),
    body: {
      call_id: row.id,
      service_id: service.id,
      slug: service.slug,
      status: "completed",
      result: outcome.result,
      payment: { chain: row.chain, chain_id: row.chain_id, tx_hash: row.tx_hash, log_index: row.log_index, payer, amount_units: row.amount_units, amount_micro_usd: row.amount_micro_usd },
      latency_ms: latencyMs,
      request_sha256: requestSha256,
      response_sha256: facts.responseSha256,
      receipt: signed,
    },
  };
}

/** Every 402 of invoke carries the terms: a buyer whose proof was refused can pay again. */
function withTerms(ctx: Context, service: ServiceRow, err: ApiError): InvokeAnswer {
  return {
    status: 402,
    headers: { "payment-required": paymentRequiredHeader(ctx.config, service, err.message) },
    body: { x402Version: 1, accepts: acceptsOf(ctx.config, service), error: err.body().error as TermsError },
  };
}

export async function invokeService(ctx: Context, slug: string, headers: Record<string, string | undefined>, body: Record<string, unknown>): Promise<InvokeAnswer> {
  const service = callableService(ctx, slug);
  if (!ctx.config.chains.length) throw notImplemented("paying for services (the operator has configured no chain)");
  try {
    const header = paymentHeader(headers);
    if (header === null) {
      throw new ApiError(402, "payment_required", `this call costs ${service.price_micro_usd} micro-USD, paid by a USDT transfer to the seller; pay one of the options in accepts, then send the call again with X-PAYMENT`);
    }
    return await paidCall(ctx, service, header, body);
  } catch (err) {
    if (err instanceof ApiError && err.status === 402) return withTerms(ctx, service, err);
    throw err;
  }
}
