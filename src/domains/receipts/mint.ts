/**
 * Minting: every settle of the meter mints one signed receipt, in settle's transaction, and
 * queues receipt_minted with it. The payload is metadata only — what happened, for whom, at
 * what cost, in what units — never a prompt, completion, code or file content. Content
 * appears, where a feature asks for it, only as a sha256 fingerprint.
 */
import { isoTime } from "../../core/clock.ts";
import { newOrderedId } from "../../core/ids.ts";
import type { SettledReceipt, SettleInfo } from "../../core/meter.ts";
import { statementOf } from "../../core/statements.ts";
import type { Context } from "../../context.ts";
import type { SigningPool } from "../../core/signing-pool.ts";

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

/** Bounds on attestations, so a receipt stays metadata and stays small enough for a response header. */
export const ATTESTATION_LIMITS = { groups: 8, fields: 16, list: 32, string: 200 } as const;

export type AttestationValue = number | string | boolean | string[];

/**
 * Attestations a receipt may carry beside its units (`units.attestations` on settle): named
 * groups — e.g. `context` (fingerprints of declared context documents and their Merkle root),
 * `routing` (privacy tier, region) — each of whole numbers, booleans, short strings and short
 * lists of short strings. Fingerprints, roots and names only: never content. A value of any
 * other shape, or beyond the bounds, is left out rather than risk content or a float.
 */
export function receiptAttestations(value: unknown): Record<string, Record<string, AttestationValue>> | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const L = ATTESTATION_LIMITS;
  const short = (v: unknown): v is string => typeof v === "string" && v.length <= L.string;
  const out: Record<string, Record<string, AttestationValue>> = {};
  for (const [name, group] of Object.entries(value).slice(0, L.groups)) {
    if (!group || typeof group !== "object" || Array.isArray(group)) continue;
    const fields: Record<string, AttestationValue> = {};
    for (const [k, v] of Object.entries(group).slice(0, L.fields)) {
      if ((typeof v === "number" && Number.isSafeInteger(v)) || typeof v === "boolean" || short(v)) fields[k] = v;
      else if (Array.isArray(v) && v.length <= L.list && v.every(short)) fields[k] = [...v];
    }
    out[name] = fields;
  }
  return Object.keys(out).length ? out : null;
}

/** What a settle hands the receipts hook (core/meter.ts SettleInfo): `prepared` is a PreparedReceipt when prepareReceipt ran. */
export type MintInput = SettleInfo;

/** A receipt signed on a worker before the settle's transaction, on the values it was to use. */
interface PreparedReceipt {
  id: string;
  statement: string;
  signature: string;
  signer: string;
  /** What the statement was made from, of what the settle's transaction can still change (see mintReceipt). */
  basis: Basis;
}

interface Basis {
  cost: number;
  keyId: string | null;
  status: string;
  uncharged: unknown;
  usageEventId: string;
  at: number;
}

const basisOf = (input: MintInput): Basis => ({
  cost: input.cost,
  keyId: input.reservation.keyId,
  status: input.status,
  uncharged: input.units.uncharged_micro_usd,
  usageEventId: input.usageEventId,
  at: input.at,
});

const sameBasis = (a: Basis, b: Basis): boolean =>
  a.cost === b.cost && a.keyId === b.keyId && a.status === b.status && a.uncharged === b.uncharged && a.usageEventId === b.usageEventId && a.at === b.at;

function receiptPayload(input: MintInput, id: string): Record<string, unknown> {
  const r = input.reservation;
  const attestations = receiptAttestations(input.units.attestations);
  return {
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
    ...(attestations ? { attestations } : {}),
  };
}

/**
 * The settle's prepare hook (core/meter.ts PrepareHook): with a signing pool (svc serve on a
 * machine with a core to spare), the receipt the settle is about to mint is signed on a worker
 * while the event loop serves other calls — or writes this call's own streamed content. null
 * without a pool, or when this call is the only one in flight and has no response to write
 * meanwhile (the round trip to the thread and back cost more than the ~0.14 ms signature:
 * bench/README.md): mintReceipt signs inline.
 */
function prepareReceipt(ctx: Context, input: MintInput): Promise<PreparedReceipt> | null {
  const pool = ctx.signingPool;
  if (!pool || (ctx.meter.inFlight <= 1 && !input.responding)) return null;
  const id = input.receiptId ?? newOrderedId("rcpt");
  const statement = statementOf(receiptPayload(input, id));
  const basis = basisOf(input);
  return ctx.signer.signOn(pool, statement).then(({ signature, signer }) => ({ id, statement, signature, signer, basis }));
}

const isPrepared = (v: unknown): v is PreparedReceipt => typeof v === "object" && v !== null && typeof (v as PreparedReceipt).statement === "string";

export function mintReceipt(ctx: Context, input: MintInput): SettledReceipt {
  const r = input.reservation;
  const prepared = isPrepared(input.prepared) ? input.prepared : null;
  const id = input.receiptId ?? prepared?.id ?? newOrderedId("rcpt");
  // The statement signed off the loop is used when the transaction decided what it was made
  // from, by the current signer. Of a payload's fields only these can differ by now: the cost
  // and its uncharged part (a cost above the hold the balance could not cover), the key (a
  // rotation meanwhile), the status, and the settle's time and usage event (fixed before the
  // transaction: compared for safety). Everything else was the reservation's. Anything
  // different is signed here, inline. (Comparing the whole canonical statement instead cost a
  // second canonical encoding per call: ~10% of the event loop at concurrency 64.)
  const reuse = prepared !== null && prepared.id === id && sameBasis(prepared.basis, basisOf(input)) && prepared.signer === ctx.signer.address;
  const statement = reuse ? prepared.statement : statementOf(receiptPayload(input, id));
  const signed = reuse ? { statement, signature: prepared.signature, signer: prepared.signer } : { statement, ...ctx.signer.signWithAddress(statement) };
  ctx.db
    .query(
      `INSERT INTO receipts (id, account_id, key_id, usage_event_id, kind, status, cost_micro_usd, run_id, receipt, signature, signer, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, r.accountId, r.keyId, input.usageEventId, r.kind, input.status, input.cost, r.runId, signed.statement, signed.signature, signed.signer, input.at);
  const event = { receipt_id: id, kind: r.kind, status: input.status, cost_micro_usd: input.cost };
  // The row keeps the receipt's id; reads restore the signed receipt from the receipts table (expandReceiptEvent).
  ctx.outbox.emit("receipt_minted", r.accountId, { ...event, receipt: signed.statement, signature: signed.signature, signer: signed.signer }, { stored: event });
  return { id, receipt: signed.statement, signature: signed.signature, signer: signed.signer };
}

/**
 * A stored receipt_minted payload ({receipt_id, kind, status, cost_micro_usd}) made whole again:
 * the receipt, its signature and signer, from the row minted in the same transaction, in the
 * order the event always had.
 */
function expandReceiptEvent(ctx: Context, stored: Record<string, unknown>): Record<string, unknown> {
  const row = ctx.db.query<{ receipt: string; signature: string; signer: string }, [string]>("SELECT receipt, signature, signer FROM receipts WHERE id = ?").get(String(stored.receipt_id));
  if (!row) return stored;
  const { receipt_id, ...rest } = stored;
  return { receipt_id, receipt: row.receipt, signature: row.signature, signer: row.signer, ...rest };
}

/** Registered for every context (settles happen in the CLI and tests too, not only in serve). */
export function registerReceiptMinting(ctx: Context): void {
  ctx.outbox.expandWith("receipt_minted", (stored) => expandReceiptEvent(ctx, stored));
  ctx.meter.onPrepareSettle((info) => prepareReceipt(ctx, info));
  ctx.meter.onSettle((info) => ({ receipt: mintReceipt(ctx, info) }));
}

declare module "../../context.ts" {
  interface Context {
    /** Receipt signing threads (svc serve, receipts.sign_workers > 0); absent: receipts are signed inline. */
    signingPool?: SigningPool;
  }
}
