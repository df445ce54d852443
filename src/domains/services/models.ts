/**
 * TypeBox models of the /v1/services routes: closed request bodies (an unknown field is refused
 * and named) and the exact shapes served, so the OpenAPI document describes what is served.
 * Sizes come from limits.ts; docs/services.md explains every field.
 */
import { t } from "elysia";
import { Int, MicroUsd, Nullable, Sha256Hex } from "../../core/schemas.ts";
import { Address, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const TxHash = t.String({ pattern: "^0x[0-9a-fA-F]{64}$", description: "0x-hex transaction hash" });
const Units = t.String({ pattern: "^[0-9]+$", description: "token base units, a decimal string" });
const Slug = t.String({
  pattern: L.SLUG_PATTERN,
  minLength: 2,
  maxLength: 63,
  error: "must be 2-63 lowercase letters, digits and inner hyphens",
  description: `the service's public name in its URL (/v1/services/<slug>); global, never reused; "${L.RESERVED_SLUGS.join('" and "')}" are reserved`,
});
const Price = MicroUsd({ minimum: 1, maximum: L.MAX_PRICE_MICRO_USD, error: `must be a whole number of micro-USD from 1 to ${L.MAX_PRICE_MICRO_USD}`, description: "what one call costs, in integer micro-USD" });
const Description = t.String({ maxLength: L.MAX_DESCRIPTION_CHARS, description: `shown in the directory, at most ${L.MAX_DESCRIPTION_CHARS} characters` });

export const CreateBody = t.Object(
  {
    slug: Slug,
    name: t.String({ minLength: 1, maxLength: L.MAX_NAME_CHARS, pattern: "\\S", error: `must be 1-${L.MAX_NAME_CHARS} characters, not all whitespace` }),
    description: Description,
    price_micro_usd: Price,
    payee: t.String({ pattern: "^0x[0-9a-fA-F]{40}$", error: "must be a 0x-prefixed 20-byte hex address", description: "the wallet buyers pay: one linked to the account (POST /v1/auth/wallets)" }),
    upstream_url: t.Optional(t.String({ minLength: 1, maxLength: 2048, description: "forward each paid call here (POST, the buyer's JSON body); through the outbound guard" })),
    handler: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "a chat model of the catalogue or engine/<slug> (one of the account's published builds) that answers each paid call's `input`, billed to the account's credit" })),
    listed: t.Optional(t.Boolean({ description: "shown in GET /v1/services/directory (default true); an unlisted service is still callable by its slug" })),
  },
  closed,
);

export const PatchBody = t.Object(
  {
    price_micro_usd: t.Optional(Price),
    description: t.Optional(Description),
    listed: t.Optional(t.Boolean()),
    enabled: t.Optional(t.Boolean({ description: "false: buyers get 404 until it is enabled again" })),
  },
  closed,
);

export const SlugParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 100 }) });

/** Any JSON object: forwarded as is to an upstream; a model handler reads its `input`. */
export const InvokeBody = t.Object({}, { additionalProperties: true, description: "for an upstream service, any JSON object (forwarded as is); for a handler service, {input: text}" });

export const Service = t.Object(
  {
    id: t.String({ description: "svc_…" }),
    slug: t.String(),
    name: t.String(),
    description: t.String(),
    price_micro_usd: MicroUsd({ minimum: 1 }),
    payee: Address,
    kind: t.Union([t.Literal("upstream"), t.Literal("handler")]),
    upstream_url: Nullable(t.String()),
    handler: Nullable(t.String()),
    listed: t.Boolean(),
    enabled: t.Boolean(),
    invoke_path: t.String(),
    created_at: Time,
    updated_at: Time,
    deleted_at: Nullable(Time),
  },
  closed,
);

export const ServiceList = t.Object({ services: t.Array(Service) }, closed);

const Accept = t.Object(
  {
    scheme: t.Literal("exact"),
    network: t.String({ description: "a configured chain's name" }),
    maxAmountRequired: Units,
    resource: t.String(),
    description: t.String(),
    mimeType: t.String(),
    payTo: Address,
    maxTimeoutSeconds: Int({ minimum: 0 }),
    asset: Address,
    extra: t.Object({ name: t.Literal("USDT"), decimals: Int({ minimum: 0 }), chain_id: Int({ minimum: 1 }), confirmations: Int({ minimum: 0 }) }, closed),
  },
  { ...closed, description: "x402 v1 payment option: pay maxAmountRequired of asset to payTo (the seller) on network" },
);

const publicFields = {
  id: t.String(),
  slug: t.String(),
  name: t.String(),
  description: t.String(),
  price_micro_usd: MicroUsd({ minimum: 1 }),
  payee: Address,
  invoke_path: t.String(),
  x402Version: t.Literal(1),
  accepts: t.Array(Accept),
};

export const PublicService = t.Object(publicFields, closed);

export const Directory = t.Object(
  {
    services: t.Array(t.Object({ ...publicFields, calls_completed: Int({ minimum: 0 }) }, closed)),
    ordering: t.Literal("calls_completed_desc", { description: "most completed calls first, then oldest first" }),
    settlement: t.Object(
      {
        protocol: t.Literal("x402"),
        scheme: t.Literal("exact"),
        custody: t.Literal("none", { description: "svc never holds a buyer's funds" }),
        description: t.String(),
        chains: t.Array(t.Object({ name: t.String(), chain_id: Int({ minimum: 1 }), token: Address, decimals: Int({ minimum: 0 }), confirmations: Int({ minimum: 0 }) }, closed)),
      },
      closed,
    ),
  },
  closed,
);

const Signed = t.Object({ statement: Statement, signature: Signature, signer: Address }, { ...closed, description: "EIP-191 signed statement (payload type service_call; docs/services.md)" });

export const Call = t.Object(
  {
    id: t.String({ description: "scall_…" }),
    status: t.Union([t.Literal("running"), t.Literal("completed"), t.Literal("failed")]),
    price_micro_usd: MicroUsd(),
    amount_micro_usd: MicroUsd(),
    amount_units: Units,
    chain: t.String(),
    chain_id: Int({ minimum: 1 }),
    tx_hash: TxHash,
    log_index: Int({ minimum: 0 }),
    payer: Address,
    http_status: Nullable(Int()),
    latency_ms: Nullable(Int({ minimum: 0 })),
    request_sha256: Sha256Hex(),
    response_sha256: Nullable(Sha256Hex()),
    error: Nullable(t.String()),
    receipt: Nullable(Signed),
    created_at: Time,
    finished_at: Nullable(Time),
  },
  closed,
);

export const CallList = t.Object({ calls: t.Array(Call), service_id: t.String(), slug: t.String() }, closed);

export const Invoked = t.Object(
  {
    call_id: t.String(),
    service_id: t.String(),
    slug: t.String(),
    status: t.Literal("completed"),
    result: t.Union([
      t.Object({ type: t.Literal("upstream"), http_status: Int(), content_type: t.String(), body: t.Unknown({ description: "the upstream's answer: parsed JSON when it is JSON, else text" }) }, closed),
      t.Object({ type: t.Literal("handler"), model: t.String(), text: t.String() }, closed),
    ]),
    payment: t.Object(
      { chain: t.String(), chain_id: Int({ minimum: 1 }), tx_hash: TxHash, log_index: Int({ minimum: 0 }), payer: Address, amount_units: Units, amount_micro_usd: MicroUsd() },
      closed,
    ),
    latency_ms: Int({ minimum: 0 }),
    request_sha256: Sha256Hex(),
    response_sha256: Sha256Hex(),
    receipt: Signed,
  },
  closed,
);

export const PaymentRequired = t.Object(
  {
    x402Version: t.Literal(1),
    accepts: t.Array(Accept),
    error: t.Object(
      {
        type: t.Union([t.Literal("payment_required"), t.Literal("payment_rejected")]),
        message: t.String(),
        reason: t.Optional(t.String({ description: "payment_rejected only: malformed_payment, unknown_network, transaction_not_found, amount_too_small, payment_already_used, payment_pending, …" })),
      },
      { additionalProperties: true },
    ),
  },
  { description: "x402 terms (v1 body; the v2 PAYMENT-REQUIRED header carries the same) beside svc's error object" },
);
