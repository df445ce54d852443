/**
 * Settling a payment request with the transaction that paid it (docs/payments.md "Settling").
 * The transaction is read through the deposits' chain client and checks (billing's
 * inspectTransaction: the node's chain id, a mined receipt with status 1, the confirmations),
 * then one of its ERC-20 Transfer logs must pay this request: the request's token contract, to
 * its payee, at least its amount, mined after the request was made, with the chain's required
 * confirmations, and not already the settlement of any request.
 *
 * Exactly once: a transfer is (chain id, tx hash, log position), the primary key of
 * pay_settlements, and a request is the UNIQUE request_id there. Both are re-checked inside the
 * write transaction that inserts the row; SQLite serialises write transactions, so of two
 * settles racing for one transfer (or one request) one wins and the other is refused.
 */
import type { Erc20Transfer } from "../../core/chain.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, conflict } from "../../core/errors.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { inspectTransaction, type Inspection, normalizeTxHash } from "../billing/index.ts";
import { settlementPayload } from "./payloads.ts";
import { ownRequest, type PaymentRequestView, requestView } from "./requests.ts";
import { insertSettlement, type RequestRow, requestSettledBy, settlementOf, type SettlementRow } from "./store.ts";

const mismatch = (type: string, message: string, extra: Record<string, unknown> = {}) => new ApiError(422, type, message, extra);

/**
 * The transfers in the transaction that pay the request (token, payee, amount). When there are
 * none, the refusal names what the transaction did instead, most specific first.
 */
function payingTransfers(inspection: Inspection, request: RequestRow): Erc20Transfer[] {
  const { txHash } = inspection;
  const required = BigInt(request.amount_units);
  const token = request.token;
  const payee = request.payee;
  const paying = inspection.transfers.filter((t) => t.token === token && t.to === payee && t.value >= required);
  if (paying.length) return paying;
  const toPayee = inspection.transfers.filter((t) => t.to === payee);
  const inToken = toPayee.filter((t) => t.token === token);
  if (inToken.length) {
    const largest = inToken.reduce((a, b) => (b.value > a.value ? b : a));
    throw mismatch("amount_too_small", `transaction ${txHash} pays ${largest.value} base units to the payee; the request asks for at least ${required}`, {
      amount_units: largest.value.toString(),
      required_units: request.amount_units,
    });
  }
  if (toPayee.length) {
    throw mismatch("wrong_token", `transaction ${txHash} pays the payee in token ${toChecksumAddress(toPayee[0]!.token)}, not the request's ${toChecksumAddress(token)}`, {
      token: toChecksumAddress(toPayee[0]!.token),
      expected_token: toChecksumAddress(token),
    });
  }
  const elsewhere = inspection.transfers.find((t) => t.token === token);
  if (elsewhere) {
    throw mismatch("wrong_payee", `transaction ${txHash} sends the token to ${toChecksumAddress(elsewhere.to)}, not to the request's payee ${toChecksumAddress(payee)}`, {
      to: toChecksumAddress(elsewhere.to),
      payee: toChecksumAddress(payee),
    });
  }
  throw mismatch("no_matching_transfer", `transaction ${txHash} holds no transfer of ${toChecksumAddress(token)} to ${toChecksumAddress(payee)}`);
}

const alreadyUsed = (txHash: string): ApiError =>
  // Silent about which request, or whose, it settled.
  conflict("transaction_already_used", `the transfer in transaction ${txHash} has already settled a payment request; each transfer settles one request once`);

/** A request already settled: the same transaction is a repeat (answered again), another one a conflict. */
function settledBefore(ctx: Context, request: RequestRow, settlement: SettlementRow, txHash: string): { request: PaymentRequestView; created: false } {
  if (settlement.tx_hash !== txHash) throw conflict("request_already_settled", `payment request ${request.id} was already settled by transaction ${settlement.tx_hash}`);
  return { request: requestView(ctx, request, settlement), created: false };
}

/**
 * POST /v1/pay/requests/:id/settle. Settling again with the transaction that settled it answers
 * the same settlement (`created` false); with another, 409.
 */
export async function settleRequest(ctx: Context, accountId: string, id: string, rawTxHash: string): Promise<{ request: PaymentRequestView; created: boolean }> {
  const request = ownRequest(ctx, accountId, id);
  const txHash = normalizeTxHash(rawTxHash);
  const existing = settlementOf(ctx, request.id);
  if (existing) return settledBefore(ctx, request, existing, txHash);
  if (ctx.clock.now() > request.expires_at) throw conflict("request_expired", `payment request ${request.id} expired at ${new Date(request.expires_at).toISOString()} and can no longer be settled`);
  // The request's chain as configured now: its node and confirmation count may have changed, its identity may not.
  const chain = ctx.config.chains.find((c) => c.name === request.chain && c.chain_id === request.chain_id);
  if (!chain) throw conflict("chain_not_configured", `chain "${request.chain}" (chain id ${request.chain_id}) is no longer configured on this deployment; the operator must restore it`);

  const inspection = await inspectTransaction(chain, txHash);
  const paying = payingTransfers(inspection, request);
  const unused = paying.filter((t) => requestSettledBy(ctx, chain.chain_id, txHash, t.position) === null);
  if (!unused.length) throw alreadyUsed(txHash);
  if (inspection.blockNumber <= request.after_block) {
    throw new ApiError(422, "transfer_before_request", `transaction ${txHash} was mined in block ${inspection.blockNumber}, before the request was made (the chain's head was then block ${request.after_block})`, {
      block_number: inspection.blockNumber,
      after_block: request.after_block,
    });
  }
  if (inspection.confirmations < chain.confirmations) {
    throw new ApiError(409, "not_enough_confirmations", `transaction ${txHash} has ${inspection.confirmations} of the ${chain.confirmations} confirmations chain "${chain.name}" requires; settle again once it has them`, {
      confirmations: inspection.confirmations,
      required_confirmations: chain.confirmations,
    });
  }

  return ctx.tx.run(() => {
    const raced = settlementOf(ctx, request.id);
    if (raced) return settledBefore(ctx, request, raced, txHash);
    const transfer = unused.find((t) => requestSettledBy(ctx, chain.chain_id, txHash, t.position) === null);
    if (!transfer) throw alreadyUsed(txHash);
    const facts = {
      chain_id: chain.chain_id,
      tx_hash: txHash,
      log_position: transfer.position,
      log_index: transfer.logIndex,
      request_id: request.id,
      from_address: transfer.from,
      amount_units: transfer.value.toString(),
      block_number: inspection.blockNumber,
      block_hash: inspection.blockHash,
      confirmations: inspection.confirmations,
      required_confirmations: chain.confirmations,
      settled_at: ctx.clock.now(),
    };
    const signed = signStatement(ctx.signer, settlementPayload(request, facts));
    const row: SettlementRow = { ...facts, statement: signed.statement, signature: signed.signature, signer: signed.signer };
    insertSettlement(ctx, row);
    return { request: requestView(ctx, { ...request, settled_at: row.settled_at }, row), created: true };
  });
}
