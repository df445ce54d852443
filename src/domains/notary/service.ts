/**
 * The notary's rules (docs/notary.md): register the sha256 fingerprints of the input and output
 * of work svc did not run, billed per receipt through the meter, with a signed receipt (kind
 * notary) that states them. svc vouches for when it was told and what it was told, never for
 * the work itself. No idempotency key: each post is its own receipt and its own charge.
 */
import { createHash } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import { isoTime } from "../../core/clock.ts";
import { invalidField, notFound } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { meterWork } from "../../core/metered-work.ts";
import type { Context } from "../../context.ts";
import { MAX_FUTURE_SKEW_MS } from "./limits.ts";
// Types only: models.ts reads limits.ts, and the shapes served are declared there once.
import type { NotaryReceipt } from "./models.ts";
import { insertNotaryReceipt, notaryReceiptById, notaryReceiptsOf, type NotaryRecord } from "./store.ts";

export type NotaryReceiptView = Static<typeof NotaryReceipt>;

export interface NotaryCaller {
  accountId: string;
  keyId: string;
}

export interface NotaryInput {
  input_sha256: string;
  output_sha256: string;
  label?: string;
  occurred_at?: string;
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** RFC 3339 to ms; refused when unparseable or ahead of svc's clock beyond the skew allowed. */
function occurredAt(ctx: Context, raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const at = Date.parse(raw);
  if (!Number.isFinite(at)) throw invalidField("occurred_at", "must be an RFC 3339 date-time");
  if (at > ctx.clock.now() + MAX_FUTURE_SKEW_MS) throw invalidField("occurred_at", "is in the future: work can be notarised only once it has happened");
  return at;
}

function view(ctx: Context, n: NotaryRecord): NotaryReceiptView {
  return {
    id: n.id,
    key_id: n.keyId,
    input_sha256: n.inputSha256,
    output_sha256: n.outputSha256,
    label: n.label,
    label_sha256: n.label === null ? null : sha256(n.label),
    occurred_at: n.occurredAt === null ? null : isoTime(n.occurredAt),
    receipt: { receipt_id: n.receipt.id, receipt: n.receipt.receipt, signature: n.receipt.signature, signer: n.receipt.signer },
    cost_micro_usd: n.costMicroUsd,
    registered_at: isoTime(n.createdAt),
    verify: `the receipt's attestations.notary must state input_sha256, output_sha256 (and label_sha256 = sha256 of the UTF-8 label, occurred_at, when given); check the receipt: POST ${ctx.config.public_url}/v1/receipts/verify with {"receipt","signature"}, or recover its EIP-191 signer and compare it with GET ${ctx.config.public_url}/v1/receipts/pubkey (docs/notary.md)`,
  };
}

/** POST /v1/notary/receipts: one charge at the configured price, one signed receipt, one row. A refused charge stores nothing. */
export async function registerReceipt(ctx: Context, caller: NotaryCaller, input: NotaryInput): Promise<NotaryReceiptView> {
  const occurred = occurredAt(ctx, input.occurred_at);
  const id = newId("ntr");
  const fingerprints: Record<string, string> = { input_sha256: input.input_sha256.toLowerCase(), output_sha256: input.output_sha256.toLowerCase() };
  if (input.label !== undefined) fingerprints.label_sha256 = sha256(input.label);
  if (occurred !== null) fingerprints.occurred_at = isoTime(occurred);
  const { settlement } = await meterWork(
    ctx.meter,
    ctx.log,
    { accountId: caller.accountId, keyId: caller.keyId, price: ctx.config.notary.receipt_price_micro_usd, kind: "notary", resource: id },
    async () => ({ result: null, status: "registered", units: { attestations: { notary: fingerprints } } }),
  );
  // Receipts are minted in every settle (the receipts area); a settle without one is a broken deployment.
  if (!settlement.receipt) throw new Error("the notary receipt's settle minted no receipt");
  const record: NotaryRecord = {
    id,
    accountId: caller.accountId,
    keyId: caller.keyId,
    inputSha256: fingerprints.input_sha256!,
    outputSha256: fingerprints.output_sha256!,
    label: input.label ?? null,
    occurredAt: occurred,
    costMicroUsd: settlement.cost,
    receipt: settlement.receipt,
    createdAt: ctx.clock.now(),
  };
  insertNotaryReceipt(ctx, record);
  return view(ctx, record);
}

export function listReceipts(ctx: Context, accountId: string, limit: number): NotaryReceiptView[] {
  return notaryReceiptsOf(ctx, accountId, limit).map((n) => view(ctx, n));
}

/** Another account's receipt answers the same 404 as an unknown one. */
export function getReceipt(ctx: Context, accountId: string, id: string): NotaryReceiptView {
  const n = notaryReceiptById(ctx, id);
  if (!n || n.accountId !== accountId) throw notFound("notary receipt");
  return view(ctx, n);
}
