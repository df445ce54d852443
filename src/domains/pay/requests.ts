/**
 * Making and reading payment requests (docs/payments.md "Payment requests"). A request asks
 * for at least an amount of one configured chain's USDT, paid to one of the account's linked
 * wallets, and is signed by svc so the payer can check it without asking svc.
 *
 * Why the payee must be a linked wallet: a transfer settles one request, ever. Were any address
 * allowed, anyone watching the chain could open a request naming someone else's wallet and
 * settle it first with that someone's incoming transfer, leaving the real request unsettleable.
 *
 * Why the chain's head is read at creation (after_block): only a transfer mined later settles
 * the request, so a transfer made before the request existed cannot be passed off as its payment.
 */
import type { Static } from "@sinclair/typebox";
import { ChainRpcError } from "../../core/chain.ts";
import { isoTime } from "../../core/clock.ts";
import { toChecksumAddress } from "../../core/eip191.ts";
import { ApiError, forbidden, invalidField, notFound, notImplemented } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { microUsdToTokenUnits } from "../../core/money.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import { walletAddressesOf } from "../auth/index.ts";
import { type ChainConfig, chainNamed, clientFor } from "../billing/index.ts";
import * as L from "./limits.ts";
// Types only: the shapes served are declared once, in models.ts.
import type { PaymentRequest } from "./models.ts";
import { requestPayload } from "./payloads.ts";
import { insertRequest, openRequestCount, type RequestRow, requestOf, settlementOf, type SettlementRow } from "./store.ts";

export type PaymentRequestView = Static<typeof PaymentRequest>;

export interface RequestInput {
  amountMicroUsd: number;
  asset: string;
  chain: string;
  payee: string;
  memo: string | null;
  /** ms; null for the default expiry. */
  expiresAt: number | null;
}

export interface PayCaller {
  accountId: string;
  keyId: string;
}

const chainUnavailable = (chain: ChainConfig, err: ChainRpcError): ApiError =>
  new ApiError(503, "chain_unavailable", `chain "${chain.name}" cannot be checked right now: ${err.message}; try again later`, { chain: chain.name }, { "retry-after": "30" });

const tooManyOpen = (): ApiError =>
  new ApiError(429, "too_many_open_requests", `this account already has ${L.MAX_OPEN_REQUESTS} open payment requests; settle some or let them expire`, { cap: L.MAX_OPEN_REQUESTS });

/** The chain's head block, after making sure its node is on the configured chain. */
async function chainHead(chain: ChainConfig): Promise<number> {
  const client = clientFor(chain);
  try {
    const nodeChainId = await client.chainId();
    if (nodeChainId !== chain.chain_id) {
      throw new ApiError(502, "wrong_chain", `the node configured for chain "${chain.name}" is on chain id ${nodeChainId}, not ${chain.chain_id}; the operator must fix the chain's configuration`, {
        chain: chain.name,
        expected_chain_id: chain.chain_id,
        node_chain_id: nodeChainId,
      });
    }
    return Number(await client.blockNumber());
  } catch (err) {
    if (err instanceof ChainRpcError) throw chainUnavailable(chain, err);
    throw err;
  }
}

export async function createRequest(ctx: Context, caller: PayCaller, input: RequestInput): Promise<PaymentRequestView> {
  if (!ctx.config.chains.length) throw notImplemented("payment requests (the operator has configured no chain)");
  if (input.asset.toUpperCase() !== L.ASSET) throw invalidField("asset", `must be "${L.ASSET}", the one token each configured chain names`);
  const chain = chainNamed(ctx.config, input.chain);
  const payee = input.payee.toLowerCase();
  if (payee === ctx.config.billing.treasury.toLowerCase()) throw invalidField("payee", "is this deployment's treasury: a transfer to it is a credit deposit, not a payment");
  if (!walletAddressesOf(ctx, caller.accountId).some((w) => w.toLowerCase() === payee)) {
    throw forbidden("payee_not_linked", `${toChecksumAddress(payee)} is not a wallet linked to this account; link it (POST /v1/auth/wallets) or name one that is`, { payee: toChecksumAddress(payee) });
  }
  const now = ctx.clock.now();
  const expiresAt = input.expiresAt ?? now + L.DEFAULT_EXPIRY_MS;
  if (expiresAt <= now) throw invalidField("expires_at", "must be in the future");
  if (expiresAt > now + L.MAX_EXPIRY_MS) throw invalidField("expires_at", `must be at most ${L.MAX_EXPIRY_MS / 86_400_000} days ahead`);
  if (openRequestCount(ctx, caller.accountId, now) >= L.MAX_OPEN_REQUESTS) {
    throw tooManyOpen();
  }

  const afterBlock = await chainHead(chain);
  const base = {
    id: newId("payreq"),
    account_id: caller.accountId,
    chain: chain.name,
    chain_id: chain.chain_id,
    token: chain.usdt.toLowerCase(),
    payee,
    decimals: chain.decimals,
    amount_micro_usd: input.amountMicroUsd,
    amount_units: microUsdToTokenUnits(input.amountMicroUsd, chain.decimals).toString(),
    after_block: afterBlock,
    expires_at: expiresAt,
    created_at: ctx.clock.now(),
  };
  const signed = signStatement(ctx.signer, requestPayload(base, input.memo));
  const row: RequestRow = { ...base, key_id: caller.keyId, statement: signed.statement, signature: signed.signature, signer: signed.signer, settled_at: null };
  ctx.tx.run(() => {
    // Re-counted in the write transaction, so racing creations cannot pass the cap together.
    if (openRequestCount(ctx, caller.accountId, base.created_at) >= L.MAX_OPEN_REQUESTS) {
      throw tooManyOpen();
    }
    insertRequest(ctx, row);
  });
  return requestView(ctx, row, null);
}

/** The memo lives only inside the signed statement. */
function memoOf(statement: string): string | null {
  const payload = JSON.parse(Buffer.from(statement, "base64url").toString("utf8")) as { memo?: unknown };
  return typeof payload.memo === "string" ? payload.memo : null;
}

export function requestView(ctx: Context, row: RequestRow, settlement: SettlementRow | null): PaymentRequestView {
  const status = settlement ? "settled" : ctx.clock.now() > row.expires_at ? "expired" : "open";
  return {
    id: row.id,
    status,
    chain: row.chain,
    chain_id: row.chain_id,
    asset: L.ASSET,
    token: toChecksumAddress(row.token),
    decimals: row.decimals,
    amount_micro_usd: row.amount_micro_usd,
    amount_units: row.amount_units,
    payee: toChecksumAddress(row.payee),
    memo: memoOf(row.statement),
    after_block: row.after_block,
    expires_at: isoTime(row.expires_at),
    created_at: isoTime(row.created_at),
    request: { statement: row.statement, signature: row.signature, signer: row.signer },
    settlement: settlement
      ? {
          tx_hash: settlement.tx_hash,
          log_index: settlement.log_index,
          from: toChecksumAddress(settlement.from_address),
          amount_units: settlement.amount_units,
          block_number: settlement.block_number,
          confirmations: settlement.confirmations,
          required_confirmations: settlement.required_confirmations,
          settled_at: isoTime(settlement.settled_at),
          receipt: { statement: settlement.statement, signature: settlement.signature, signer: settlement.signer },
        }
      : null,
  };
}

/** The account's request, or the 404 an unknown id and another account's id share. */
export function ownRequest(ctx: Context, accountId: string, id: string): RequestRow {
  const row = requestOf(ctx, accountId, id);
  if (!row) throw notFound("payment request");
  return row;
}

export function getRequest(ctx: Context, accountId: string, id: string): PaymentRequestView {
  const row = ownRequest(ctx, accountId, id);
  return requestView(ctx, row, settlementOf(ctx, row.id));
}
