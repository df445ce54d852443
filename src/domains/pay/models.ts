/**
 * TypeBox models of the payment-request routes: closed request bodies (an unknown field is
 * refused and named) and the exact shapes served, so the OpenAPI document describes what is
 * served. Sizes come from limits.ts; docs/payments.md explains every field.
 */
import { t } from "elysia";
import { Instant } from "../../core/instant.ts";
import { Int, MicroUsd, Nullable } from "../../core/schemas.ts";
import { Address, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;

const Time = t.String({ format: "date-time" });
const Units = t.String({ pattern: "^[0-9]+$", description: "token base units, a decimal string" });
const TxHash = t.String({ pattern: "^0x[0-9a-fA-F]{64}$", error: "must be a 0x-prefixed 32-byte hex transaction hash", description: "0x-hex transaction hash" });

export const CreateBody = t.Object(
  {
    amount: MicroUsd({ minimum: 1, error: "must be a whole number of micro-USD from 1", description: "what to be paid, in integer micro-USD (1 USDT = 1,000,000); the token amount is derived from the chain's decimals" }),
    asset: t.String({ minLength: 1, maxLength: 20, description: `the token: "${L.ASSET}" (each configured chain names one USDT contract)` }),
    chain: t.String({ minLength: 1, maxLength: 100, description: "a configured chain's name (GET /v1/billing/methods)" }),
    payee: t.String({ pattern: "^0x[0-9a-fA-F]{40}$", error: "must be a 0x-prefixed 20-byte hex address", description: "the address to be paid: a wallet linked to the account (POST /v1/auth/wallets)" }),
    memo: t.Optional(t.String({ minLength: 1, maxLength: L.MAX_MEMO_CHARS, description: `shown to the payer and signed with the request, 1-${L.MAX_MEMO_CHARS} characters; stored in clear` })),
    expires_at: t.Optional(
      Instant({
        description: `after this the request cannot be settled; in the future, at most ${L.MAX_EXPIRY_MS / 86_400_000} days ahead; default ${L.DEFAULT_EXPIRY_MS / 86_400_000} days`,
      }),
    ),
  },
  closed,
);

export const SettleBody = t.Object({ tx_hash: TxHash }, closed);

export const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

/** An EIP-191 signed statement: recover the signer from (statement, signature) with any Ethereum library, then base64url-decode the statement. */
const signed = (description: string) => t.Object({ statement: Statement, signature: Signature, signer: Address }, { ...closed, description });

export const Settlement = t.Object(
  {
    tx_hash: TxHash,
    log_index: Int({ minimum: 0, description: "the Transfer log's index in its block" }),
    from: Address,
    amount_units: t.String({ pattern: "^[0-9]+$", description: "what the transfer carried, token base units (at least the requested amount)" }),
    block_number: Int({ minimum: 0 }),
    confirmations: Int({ minimum: 0, description: "when it was settled" }),
    required_confirmations: Int({ minimum: 0 }),
    settled_at: Time,
    receipt: signed("the signed settlement receipt (payload type payment_settlement; docs/payments.md)"),
  },
  closed,
);

export const PaymentRequest = t.Object(
  {
    id: t.String({ description: "payreq_…" }),
    status: t.Union([t.Literal("open"), t.Literal("settled"), t.Literal("expired")]),
    chain: t.String(),
    chain_id: Int({ minimum: 1 }),
    asset: t.Literal(L.ASSET),
    token: Address,
    decimals: Int({ minimum: 0 }),
    amount_micro_usd: MicroUsd({ minimum: 1 }),
    amount_units: Units,
    payee: Address,
    memo: Nullable(t.String()),
    after_block: Int({ minimum: 0, description: "the chain's head when the request was made: only a transfer mined in a later block settles it" }),
    expires_at: Time,
    created_at: Time,
    request: signed("the signed request (payload type payment_request): give it to the payer, who can check it without svc"),
    settlement: Nullable(Settlement),
  },
  closed,
);
