/**
 * Minting: every settle of the meter mints one signed receipt, in settle's transaction, and
 * queues receipt_minted with it. The payload is metadata only — what happened, for whom, at
 * what cost, in what units — never a prompt, completion, code or file content. Content
 * appears, where a feature asks for it, only as a sha256 fingerprint.
 */
import { isoTime } from "../../core/clock.ts";
import { newId } from "../../core/ids.ts";
import type { Reservation, SettledReceipt } from "../../core/meter.ts";
import { signStatement } from "../../core/statements.ts";
import type { Context } from "../../context.ts";

/** Receipt payload version (spec §9.4: payload v is 1). */
export const RECEIPT_VERSION = 1;

/**
 * Units as a receipt may carry them: whole numbers (token counts, seconds), short strings
 * (fingerprints, finish reasons) and booleans. Anything else is left out rather than risk
 * content or a float (canonical JSON holds integers only).
 */
export function receiptUnits(units: Record<string, unknown>): Record<string, number | string | boolean> {
  const out: Record<string, number | string | boolean> = {};
  for (const [k, v] of Object.entries(units)) {
    if (typeof v === "number" && Number.isSafeInteger(v)) out[k] = v;
    else if (typeof v === "boolean") out[k] = v;
    else if (typeof v === "string" && v.length <= 200) out[k] = v;
  }
  return out;
}

export interface MintInput {
  reservation: Reservation;
  cost: number;
  usageEventId: string;
  units: Record<string, unknown>;
  status: string;
  at: number;
}

export function mintReceipt(ctx: Context, input: MintInput): SettledReceipt {
  const r = input.reservation;
  const id = newId("rcpt");
  const payload = {
    v: RECEIPT_VERSION,
    type: "receipt",
    id,
    kind: r.kind,
    status: input.status,
    account: r.accountId,
    key_id: r.keyId,
    resource: r.resource,
    run_id: r.runId,
    cost_micro_usd: input.cost,
    reserved_micro_usd: r.amount,
    units: receiptUnits(input.units),
    usage_event_id: input.usageEventId,
    reserved_at: isoTime(r.reservedAt),
    settled_at: isoTime(input.at),
  };
  const signed = signStatement(ctx.signer, payload);
  ctx.db
    .query(
      `INSERT INTO receipts (id, account_id, key_id, usage_event_id, kind, status, cost_micro_usd, run_id, receipt, signature, signer, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, r.accountId, r.keyId, input.usageEventId, r.kind, input.status, input.cost, r.runId, signed.statement, signed.signature, signed.signer, input.at);
  ctx.outbox.emit("receipt_minted", r.accountId, {
    receipt_id: id,
    receipt: signed.statement,
    signature: signed.signature,
    signer: signed.signer,
    kind: r.kind,
    status: input.status,
    cost_micro_usd: input.cost,
  });
  return { id, receipt: signed.statement, signature: signed.signature, signer: signed.signer };
}

/** Registered for every context (settles happen in the CLI and tests too, not only in serve). */
export function registerReceiptMinting(ctx: Context): void {
  ctx.meter.onSettle((info) => ({ receipt: mintReceipt(ctx, info) }));
}
